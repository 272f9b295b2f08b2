package dev.vantage.profiler.trace;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Reads the events of a {@link Trace} one at a time without creating an object per event. Call {@link #next()}
 * before reading the first event; the accessors describe the current event. Not thread-safe: one cursor per reader.
 */
@ProviderType
public interface EventCursor {

    /** Moves to the next event; returns false when there is none. */
    boolean next();

    /** Returns the current event's name. */
    String name();

    /** Returns what the current event is. */
    EventKind kind();

    /** Returns the Java thread id of the thread that recorded the current event. */
    long threadId();

    /** Returns the start, in nanoseconds since the Unix epoch. */
    long startEpochNanos();

    /** Returns the duration in nanoseconds, never negative. */
    long durationNanos();

    /** Returns the event's id, unique within the trace (Kineto's {@code External id}). */
    long eventId();
}
