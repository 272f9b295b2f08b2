package dev.vantage.trace.engine.write;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.trace.engine.store.LongLongMap;

/**
 * The {@code ac2g} flows of a trace whose launches start more than one device event: an ONNX Runtime
 * {@code model_run} starts every node of the graph under one correlation id, as a CUDA graph launch starts its
 * kernels. chrome://tracing draws one arrow per flow id and warns for every further end, so each such device event
 * gets a flow of its own, as Kineto gives each device event: a start on the launch (its thread, its time), a finish
 * on the device event, and an id no other flow of the file has (above every correlation id). A launch that starts
 * one device event keeps its correlation id as the flow's, as Kineto writes it.
 *
 * <p>Found in one pass over the trace before it is written: per correlation id, how many device events it has and
 * where its launch is, in maps of longs (no object per event). Not thread-safe: one per written trace.
 */
final class LaunchFlows {

    private final LongLongMap devices = new LongLongMap();
    private final LongLongMap launchTime = new LongLongMap();
    private final LongLongMap launchThread = new LongLongMap();
    private long nextId;

    private LaunchFlows() {
    }

    /**
     * Reads the trace's launches and device work.
     *
     * @param base the time the written times are relative to, in nanoseconds since the epoch
     */
    static LaunchFlows of(Trace trace, long base) {
        LaunchFlows f = new LaunchFlows();
        long max = -1;
        EventCursor c = trace.events();
        while (c.next()) {
            long id = c.flowId();
            if (id < 0) {
                continue;
            }
            EventKind kind = c.kind();
            if (kind.isDeviceWork()) {
                f.devices.add(id, 1);
                max = Math.max(max, id);
            } else if (kind == EventKind.RUNTIME) {
                f.launchTime.put(id, c.startEpochNanos() - base);
                f.launchThread.put(id, c.threadId());
                max = Math.max(max, id);
            }
        }
        f.nextId = max + 1;
        return f;
    }

    /** Whether the launch of this correlation id starts more than one device event that has a launch to start from. */
    boolean shared(long id) {
        return devices.get(id, 0) > 1 && launchThread.get(id, Long.MIN_VALUE) != Long.MIN_VALUE;
    }

    /** The launch's thread. */
    long launchThread(long id) {
        return launchThread.get(id, -1);
    }

    /** The launch's start, relative to the base time. */
    long launchTime(long id) {
        return launchTime.get(id, 0);
    }

    /** A flow id that no correlation id of the trace and no earlier flow has. */
    long nextId() {
        return nextId++;
    }
}
