package dev.vantage.profiler.trace;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A finished, immutable trace: what exporters write. Thread-safe; every {@link #events()} call returns a new
 * cursor, so several exporters may read one trace at once.
 */
@ProviderType
public interface Trace {

    /** Returns the process id of the profiled JVM. */
    long processId();

    /** Returns a human name for the profiled process, such as {@code vantage matmul}. */
    String processName();

    /** Returns the start of the recording window, in nanoseconds since the Unix epoch. */
    long startEpochNanos();

    /** Returns the end of the recording window, in nanoseconds since the Unix epoch. */
    long endEpochNanos();

    /** Returns the threads that recorded events, in order of their first event. */
    List<TraceThread> threads();

    /** Returns the devices that did work in the trace, in order of type and index; empty for a host-only trace. */
    List<TraceDevice> devices();

    /** Returns how many events {@link #events()} yields. */
    long eventCount();

    /** Returns the events lost over all threads and devices: host events beyond the buffer limit, and device
     * records the device sessions reported dropped. */
    long droppedEvents();

    /**
     * Returns metadata to write at the top of the trace: the profiler's own keys (settings, bundle versions,
     * drop counts) and the user's. Keys and values are plain strings; sorted by key.
     */
    Map<String, String> metadata();

    /** Returns a new cursor over all events, per thread in recording order, threads in {@link #threads()} order. */
    EventCursor events();

    /**
     * Returns the steps ({@code ProfilerStep#N} spans) in start order, each with the end of the device work
     * {@link StepRule} attributes to it; empty for a trace recorded without a schedule. The default reads the events
     * twice ({@link StepRule#read}); an implementation that knows its steps returns them directly.
     *
     * @since 1.5
     */
    default List<TraceStep> steps() {
        return StepRule.read(this);
    }
}
