package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.summary.TensorCores;

/**
 * The TensorBoard profiler plugin's GPU figures, per device, as its Overview showed them (kineto's
 * {@code tb_plugin/torch_tb_profiler/profiler/gpu_metrics_parser.py}): over the span of the steps (from the first
 * step's start to the end of the last step's time, device work included), the share of it with a kernel running
 * ({@code gpu_utilization}); the estimated SM efficiency, each instant's sum of the running kernels' {@code blocks per
 * SM} capped at 1, averaged over the span ({@code sm_efficiency}); the estimated achieved occupancy, the kernels'
 * {@code est. achieved occupancy %} weighted by their time within the span ({@code achieved_occupancy}); and the share
 * of kernel time on Tensor Cores ({@code tensor_core_pct}, all the device's kernels, by their names:
 * {@link TensorCores}, which knows kernels the plugin's list does not). A trace
 * without {@code ProfilerStep#N} is one step from its first host event to its last, and its kernels' end. Kernels
 * only: copies and fills do not count, as in the plugin.
 *
 * @param rank the rank
 * @param devices per device index, ascending
 */
public record GpuMetrics(int rank, List<Device> devices) {

    /** The columns. */
    public static final List<String> COLUMNS = List.of("rank", "device", "gpu_utilization", "sm_efficiency",
            "achieved_occupancy", "tensor_core_pct", "span_us");

    /**
     * One device's figures.
     *
     * @param device the device's index
     * @param utilization the share of the span with a kernel running, 0 to 1
     * @param smEfficiency the estimated SM efficiency, 0 to 1; null when no kernel inside the span carries {@code blocks
     *     per SM}
     * @param occupancyPct the estimated achieved occupancy in per cent; null when no kernel carries it
     * @param tensorCorePct the share of the device's kernel time on Tensor Cores, in per cent
     * @param spanNanos the steps' span the figures are taken over
     */
    public record Device(int device, double utilization, Double smEfficiency, Double occupancyPct,
            double tensorCorePct, long spanNanos) {
    }

    /** The figures of a trace's kernels over the span of its steps. */
    public static GpuMetrics of(int rank, AnalysedTrace trace) {
        DeviceRows rows = trace.data().device();
        long offset = trace.data().epochOffsetNanos();
        long from;
        long to;
        List<TraceStep> steps = trace.steps();
        if (!steps.isEmpty()) {
            from = steps.get(0).startEpochNanos() - offset;
            to = steps.get(steps.size() - 1).timeEndEpochNanos() - offset;
        } else {
            from = Long.MAX_VALUE;
            to = Long.MIN_VALUE;
            for (HostThread t : trace.data().threads()) {
                for (int i = 0; i < t.rows().size(); i++) {
                    from = Math.min(from, t.rows().start(i));
                    to = Math.max(to, t.rows().end(i));
                }
            }
            for (int i = 0; i < rows.size(); i++) {
                if (rows.kind(i) == EventKind.KERNEL) {
                    to = Math.max(to, rows.end(i));
                }
            }
        }
        return over(rank, rows, from, to);
    }

    /**
     * The figures of a trace's kernels over a span of its own choosing (the plugin's, whose steps follow its own rule
     * rather than the engine's {@code StepRule}), in nanoseconds since the Unix epoch.
     */
    public static GpuMetrics of(int rank, AnalysedTrace trace, long fromEpochNanos, long toEpochNanos) {
        long offset = trace.data().epochOffsetNanos();
        return over(rank, trace.data().device(), fromEpochNanos - offset, toEpochNanos - offset);
    }

    private static GpuMetrics over(int rank, DeviceRows rows, long from, long to) {
        Map<Integer, List<Integer>> byDevice = new TreeMap<>();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.kind(i) == EventKind.KERNEL) {
                byDevice.computeIfAbsent(rows.deviceIndex(i), d -> new ArrayList<>()).add(i);
            }
        }
        List<Device> out = new ArrayList<>();
        long span = Math.max(0, to - from);
        for (Map.Entry<Integer, List<Integer>> e : byDevice.entrySet()) {
            out.add(device(e.getKey(), e.getValue(), rows, from, to, span));
        }
        return new GpuMetrics(rank, List.copyOf(out));
    }

    private static Device device(int device, List<Integer> kernels, DeviceRows rows, long from, long to, long span) {
        DeviceIntervals busy = new DeviceIntervals();
        // blocks per SM: +value at a kernel's start, -value at its end, as {time, 0 start or 1 end, the value's bits};
        // times kept as longs (a double holds an epoch nanosecond only to 256 ns)
        List<long[]> edges = new ArrayList<>();
        double occupancyWeighted = 0;
        long occupancyTime = 0;
        boolean anyBlocks = false;
        long kernelTime = 0;
        long tensorTime = 0;
        for (int i : kernels) {
            long s = rows.start(i);
            long t = rows.end(i);
            busy.add(s, t);
            kernelTime += t - s;
            if (TensorCores.uses(rows.name(i))) {
                tensorTime += t - s;
            }
            double blocks = rows.number(i, "blocks per SM");
            if (blocks > 0) {
                anyBlocks = true;
                long bits = Double.doubleToRawLongBits(blocks);
                edges.add(new long[] {s, 0, bits});
                edges.add(new long[] {t, 1, bits});
            }
            double occupancy = rows.number(i, "est. achieved occupancy %");
            if (occupancy >= 0) {
                long clipped = Math.min(t, to) - Math.max(s, from);
                if (clipped > 0) {
                    occupancyWeighted += occupancy * clipped;
                    occupancyTime += clipped;
                }
            }
        }
        long[] merged = busy.merged();
        long inSpan = 0;
        for (int k = 0; k < merged.length; k += 2) {
            inSpan += Math.max(0, Math.min(merged[k + 1], to) - Math.max(merged[k], from));
        }
        Double sm = null;
        if (anyBlocks && span > 0) {
            // starts before ends at one instant, as the plugin sorts them
            edges.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            double weighted = 0;
            boolean inside = false;
            double running = Double.longBitsToDouble(edges.get(0)[2]);
            long last = edges.get(0)[0];
            for (int k = 1; k < edges.size(); k++) {
                long[] edge = edges.get(k);
                if (edge[0] > last && running > 0) {
                    long clipped = Math.min(edge[0], to) - Math.max(last, from);
                    if (clipped > 0) {
                        weighted += Math.min(running, 1.0) * clipped;
                        inside = true;
                    }
                }
                last = edge[0];
                double value = Double.longBitsToDouble(edge[2]);
                running += edge[1] == 0 ? value : -value;
            }
            // as the plugin: no figure when no kernel with blocks per SM ran inside the span
            sm = inside ? weighted / span : null;
        }
        return new Device(device, span == 0 ? 0 : (double) inSpan / span, sm,
                occupancyTime > 0 ? occupancyWeighted / occupancyTime : null,
                kernelTime == 0 ? 0 : 100.0 * tensorTime / kernelTime, span);
    }

    /** The rows of {@link #COLUMNS}. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        for (Device d : devices) {
            out.add(Arrays.asList(rank, d.device(), d.utilization(), d.smEfficiency(), d.occupancyPct(),
                    d.tensorCorePct(), d.spanNanos() / 1000.0));
        }
        return out;
    }
}
