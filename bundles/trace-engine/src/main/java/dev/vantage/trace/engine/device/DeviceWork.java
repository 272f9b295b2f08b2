package dev.vantage.trace.engine.device;

import java.util.Arrays;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.StepSpan;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.LongLongMap;

/**
 * The device work of one trace that HTA's analyses count, with its {@link KernelType}s. As HTA reads a trace by
 * default ({@code include_last_profiler_step=False}), the last {@code ProfilerStep#N} is left out, since its device
 * work is often cut off by the end of the capture: a kernel, copy or fill counts when the runtime call that launched it
 * (same {@code correlation}) started before the last step did, and work whose launch is not in the trace does not
 * count. A trace with fewer than two {@code ProfilerStep#N} counts all its device work, as HTA does; so does a trace
 * that records no runtime calls at all (HTA would count none of it), by the work's own start. {@code docs/analysis.md} lists where the figures differ from HTA's.
 */
public final class DeviceWork {

    private final DeviceRows rows;
    private final int[] kept;
    private final KernelType[] types;
    private final int[] launches;
    private final long traceNanos;
    private final long cutNanos;

    private DeviceWork(DeviceRows rows, int[] kept, KernelType[] types, int[] launches, long traceNanos,
            long cutNanos) {
        this.rows = rows;
        this.kept = kept;
        this.types = types;
        this.launches = launches;
        this.traceNanos = traceNanos;
        this.cutNanos = cutNanos;
    }

    /**
     * The device work of a trace that HTA's analyses count.
     *
     * @param lastStep whether the last profiler step counts too ({@code include_last_profiler_step=True})
     */
    public static DeviceWork of(TraceData trace, boolean lastStep) {
        DeviceRows rows = trace.device();
        long cut = lastStep ? Long.MAX_VALUE : lastStepStart(trace);
        // the runtime calls' rows by correlation (a runtime row's flow id is its correlation)
        LongLongMap callOf = new LongLongMap();
        boolean anyCall = false;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.kind(i) == EventKind.RUNTIME && rows.flowId(i) >= 0) {
                callOf.put(rows.flowId(i), i);
                anyCall = true;
            }
        }
        int[] kept = new int[rows.size()];
        KernelType[] types = new KernelType[rows.size()];
        int[] calls = new int[rows.size()];
        int n = 0;
        for (int i = 0; i < rows.size(); i++) {
            KernelType type = KernelType.of(rows.kind(i), rows.name(i), rows.args(i));
            if (type == null) {
                continue;
            }
            long flow = rows.flowId(i);
            int call = flow >= 0 ? (int) callOf.get(flow, -1) : -1;
            boolean counts;
            if (cut == Long.MAX_VALUE) {
                counts = true;
            } else if (call >= 0) {
                counts = rows.start(call) < cut;
            } else {
                // its launch is not in the trace: outside the traced iterations, unless no launch is recorded at all
                counts = !anyCall && rows.start(i) < cut;
            }
            if (counts) {
                kept[n] = i;
                calls[n] = call;
                types[n++] = type;
            }
        }
        return new DeviceWork(rows, Arrays.copyOf(kept, n), Arrays.copyOf(types, n), Arrays.copyOf(calls, n),
                Math.max(0, trace.stopNanos() - trace.startNanos()), cut);
    }

    /**
     * The start of the last {@code ProfilerStep#N}; no bound when the trace has fewer than two steps, where HTA keeps
     * all its work too.
     */
    private static long lastStepStart(TraceData trace) {
        long last = Long.MIN_VALUE;
        java.util.Set<Long> numbers = new java.util.HashSet<>();
        for (StepSpan s : trace.steps()) {
            // Kineto's own iterations (no ProfilerStep#N in the trace) have no thread
            if (s.threadId() != -1) {
                last = Math.max(last, s.startNanos());
                numbers.add(s.number());
            }
        }
        return numbers.size() < 2 ? Long.MAX_VALUE : last;
    }

    /**
     * The start of the last profiler step, which the work counted was launched before, on the trace's clock; {@link
     * Long#MAX_VALUE} when the last step counts too, or the trace has fewer than two steps.
     */
    public long cutNanos() {
        return cutNanos;
    }

    /** The trace's length, from its first event to its last, all of it. */
    public long traceNanos() {
        return traceNanos;
    }

    /** How many pieces of work count. */
    public int size() {
        return kept.length;
    }

    /** The device rows the work is in. */
    public DeviceRows rows() {
        return rows;
    }

    /** The device row of the k-th piece of work. */
    public int row(int k) {
        return kept[k];
    }

    /**
     * The device row of the runtime call that launched the k-th piece of work (the runtime row of the same
     * {@code correlation}), or -1 when the trace has none.
     */
    public int launch(int k) {
        return launches[k];
    }

    /**
     * The runtime call that launched the k-th piece of work when it is one of the launch calls an analysis counts
     * ({@link LaunchCalls}), else -1.
     */
    int launch(int k, java.util.Set<String> listed) {
        int call = launches[k];
        return call >= 0 && LaunchCalls.launches(rows.name(call), listed) ? call : -1;
    }

    /** The type of the k-th piece of work. */
    public KernelType type(int k) {
        return types[k];
    }
}
