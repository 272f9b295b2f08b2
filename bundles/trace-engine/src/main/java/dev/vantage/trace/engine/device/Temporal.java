package dev.vantage.trace.engine.device;

import dev.vantage.trace.engine.DeviceRows;

/**
 * One rank's device time, split as HTA's temporal breakdown splits it ({@code TraceAnalysis.get_temporal_breakdown}):
 * over the span from the first device work's start to the last one's end ({@code kernel_time}), the time no device
 * work ran ({@code idle_time}), the time computation kernels ran ({@code compute_time}) and the rest, when only copies,
 * fills or communication ran ({@code non_compute_time}). All devices and streams of the trace together, as HTA does.
 * Times are nanoseconds; HTA's columns are microseconds ({@link #COLUMNS}).
 *
 * @param rank the rank
 * @param idleNanos time within the span with no device work running
 * @param computeNanos time with a computation kernel running
 * @param nonComputeNanos the span's remaining time: device work running, none of it computation
 * @param spanNanos from the first device work's start to the last one's end; 0 for a trace without device work
 */
public record Temporal(int rank, long idleNanos, long computeNanos, long nonComputeNanos, long spanNanos) {

    /** HTA's column names, in HTA's order. */
    public static final java.util.List<String> COLUMNS = java.util.List.of("rank", "idle_time(us)",
            "compute_time(us)", "non_compute_time(us)", "kernel_time(us)", "idle_time_pctg", "compute_time_pctg",
            "non_compute_time_pctg");

    /** Computes the breakdown of a trace's device work. */
    public static Temporal of(int rank, DeviceWork work) {
        DeviceIntervals all = new DeviceIntervals();
        DeviceIntervals compute = new DeviceIntervals();
        for (int k = 0; k < work.size(); k++) {
            long end = Math.max(work.start(k), work.end(k));
            all.add(work.start(k), end);
            if (work.type(k) == KernelType.COMPUTATION) {
                compute.add(work.start(k), end);
            }
        }
        if (all.isEmpty()) {
            return new Temporal(rank, 0, 0, 0, 0);
        }
        long[] merged = all.merged();
        long span = merged[merged.length - 1] - merged[0];
        long idle = span - DeviceIntervals.length(merged);
        long computeNanos = DeviceIntervals.length(compute.merged());
        return new Temporal(rank, idle, computeNanos, span - computeNanos - idle, span);
    }

    /** A share of the span in per cent, rounded to two decimals as HTA rounds it; 0 for an empty span. */
    public static double percent(long part, long span) {
        return span == 0 ? 0 : Math.round(10000.0 * part / span) / 100.0;
    }

    /** This breakdown as a row of {@link #COLUMNS}: times in microseconds, shares in per cent. */
    public java.util.List<Object> row() {
        return java.util.List.of(rank, idleNanos / 1000.0, computeNanos / 1000.0, nonComputeNanos / 1000.0,
                spanNanos / 1000.0, percent(idleNanos, spanNanos), percent(computeNanos, spanNanos),
                percent(nonComputeNanos, spanNanos));
    }
}
