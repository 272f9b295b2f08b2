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
    private final long traceNanos;

    private DeviceWork(DeviceRows rows, int[] kept, KernelType[] types, long traceNanos) {
        this.rows = rows;
        this.kept = kept;
        this.types = types;
        this.traceNanos = traceNanos;
    }

    /**
     * The device work of a trace that HTA's analyses count.
     *
     * @param lastStep whether the last profiler step counts too ({@code include_last_profiler_step=True})
     */
    public static DeviceWork of(TraceData trace, boolean lastStep) {
        DeviceRows rows = trace.device();
        long cut = lastStep ? Long.MAX_VALUE : lastStepStart(trace);
        // the runtime calls' starts by correlation (a runtime row's flow id is its correlation)
        LongLongMap launchedAt = new LongLongMap();
        boolean launches = false;
        for (int i = 0; i < rows.size(); i++) {
            if (rows.kind(i) == EventKind.RUNTIME && rows.flowId(i) >= 0) {
                launchedAt.put(rows.flowId(i), rows.start(i));
                launches = true;
            }
        }
        int[] kept = new int[rows.size()];
        KernelType[] types = new KernelType[rows.size()];
        int n = 0;
        for (int i = 0; i < rows.size(); i++) {
            KernelType type = KernelType.of(rows.kind(i), rows.name(i), rows.args(i));
            if (type == null) {
                continue;
            }
            long flow = rows.flowId(i);
            long launched = flow >= 0 ? launchedAt.get(flow, Long.MIN_VALUE) : Long.MIN_VALUE;
            boolean counts;
            if (cut == Long.MAX_VALUE) {
                counts = true;
            } else if (launched != Long.MIN_VALUE) {
                counts = launched < cut;
            } else {
                // its launch is not in the trace: outside the traced iterations, unless no launch is recorded at all
                counts = !launches && rows.start(i) < cut;
            }
            if (counts) {
                kept[n] = i;
                types[n++] = type;
            }
        }
        return new DeviceWork(rows, Arrays.copyOf(kept, n), Arrays.copyOf(types, n),
                Math.max(0, trace.stopNanos() - trace.startNanos()));
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

    /** The type of the k-th piece of work. */
    public KernelType type(int k) {
        return types[k];
    }
}
