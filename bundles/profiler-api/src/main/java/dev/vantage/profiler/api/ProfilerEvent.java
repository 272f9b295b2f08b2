package dev.vantage.profiler.api;

import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.trace.EventKind;

/**
 * One recorded event, as returned by {@link Profile#events()}.
 *
 * @param id the event's id, unique within the profile
 * @param name the op or annotation name
 * @param kind what the event is
 * @param threadId the Java thread id of the recording thread
 * @param startNanos start, {@link System#nanoTime()} clock
 * @param endNanos end, same clock; an event still open at stop ends at the stop time
 * @param parentId the id of the enclosing event on the same thread, or -1 for a top-level event
 * @param childIds the ids of the events directly nested inside, in order
 */
public record ProfilerEvent(long id, String name, EventKind kind, long threadId, long startNanos, long endNanos,
        long parentId, List<Long> childIds) {

    /** Checks and copies the fields. */
    public ProfilerEvent {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        childIds = List.copyOf(childIds);
    }

    /** Returns the duration in nanoseconds. */
    public long durationNanos() {
        return endNanos - startNanos;
    }
}
