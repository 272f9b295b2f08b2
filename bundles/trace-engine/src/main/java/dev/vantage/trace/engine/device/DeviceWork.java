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
 *
 * <p>Times ({@link #start}, {@link #end}, {@link #launchStart}, {@link #launchEnd}) are HTA's: for a trace PyTorch wrote
 * with times in fractions of a microsecond (Kineto since 2024), HTA rounds every start up to the microsecond and every
 * end down (from the microseconds as a double holds them), because such traces nest events that overlap by a few
 * nanoseconds (pytorch#122425); the analyses that carry HTA's names take those times so that they give HTA's figures.
 * A trace Vantage wrote (it carries {@code vantage.run_id}) and a trace in whole microseconds keep their times.
 */
public final class DeviceWork {

    private final DeviceRows rows;
    private final int[] kept;
    private final KernelType[] types;
    private final int[] launches;
    private final long traceNanos;
    private final long cutNanos;
    /** HTA's times, or null when they are the rows' own. */
    private final long[] times;

    private DeviceWork(DeviceRows rows, int[] kept, KernelType[] types, int[] launches, long traceNanos,
            long cutNanos, boolean htaTimes) {
        this.rows = rows;
        this.kept = kept;
        this.types = types;
        this.launches = launches;
        this.traceNanos = traceNanos;
        this.cutNanos = cutNanos;
        if (htaTimes) {
            times = new long[kept.length * 4];
            for (int k = 0; k < kept.length; k++) {
                round(kept[k], times, 4 * k);
                if (launches[k] >= 0) {
                    round(launches[k], times, 4 * k + 2);
                }
            }
        } else {
            times = null;
        }
    }

    /** A row's start and end as HTA takes them, into out[at] and out[at + 1]. */
    private void round(int row, long[] out, int at) {
        double start = java.math.BigDecimal.valueOf(rows.start(row), 3).doubleValue();
        double dur = java.math.BigDecimal.valueOf(rows.end(row) - rows.start(row), 3).doubleValue();
        out[at] = (long) Math.ceil(start) * 1000;
        out[at + 1] = (long) Math.floor(start + dur) * 1000;
    }

    /** Whether HTA rounds the trace's times: PyTorch wrote it, with times in fractions of a microsecond. */
    private static boolean htaRounds(TraceData trace) {
        String format = trace.source().format();
        if (!(format.equals("kineto") || format.equals("legacy")) || trace.metadata().containsKey("vantage.run_id")) {
            return false;
        }
        DeviceRows rows = trace.device();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.start(i) % 1000 != 0) {
                return true;
            }
        }
        for (dev.vantage.trace.engine.HostThread t : trace.threads()) {
            for (int i = 0; i < t.rows().size(); i++) {
                if (t.rows().start(i) % 1000 != 0) {
                    return true;
                }
            }
        }
        return false;
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
            KernelType type = KernelType.of(rows, i);
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
                Math.max(0, trace.stopNanos() - trace.startNanos()), cut, htaRounds(trace));
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

    /** The start of the k-th piece of work, nanoseconds (HTA's, see the class). */
    public long start(int k) {
        return times == null ? rows.start(kept[k]) : times[4 * k];
    }

    /** The end of the k-th piece of work, nanoseconds (HTA's: rounding can put it a microsecond before the start). */
    public long end(int k) {
        return times == null ? rows.end(kept[k]) : times[4 * k + 1];
    }

    /** The duration of the k-th piece of work, nanoseconds (HTA's: -1 us where rounding crossed start and end). */
    public long duration(int k) {
        return end(k) - start(k);
    }

    /** The start of the k-th piece of work's launch call ({@link #launch(int)} is not -1), nanoseconds. */
    public long launchStart(int k) {
        return times == null ? rows.start(launches[k]) : times[4 * k + 2];
    }

    /** The end of the k-th piece of work's launch call, nanoseconds. */
    public long launchEnd(int k) {
        return times == null ? rows.end(launches[k]) : times[4 * k + 3];
    }

    /** The type of the k-th piece of work. */
    public KernelType type(int k) {
        return types[k];
    }
}
