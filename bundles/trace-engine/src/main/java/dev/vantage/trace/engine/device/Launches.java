package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.List;

import dev.vantage.trace.engine.DeviceRows;

/**
 * HTA's kernel launch statistics ({@code TraceAnalysis.get_cuda_kernel_launch_stats}): for each piece of device work
 * that {@link DeviceWork} counts and that a launch call of the runtime started (same {@code correlation}), how long
 * the call took on the host ({@code cpu_duration}), how long the work ran ({@code gpu_duration}), and how long after
 * the call returned the work began ({@code launch_delay}, 0 when it began before). The launch calls are HTA's
 * ({@code cudaLaunchKernel}, {@code cudaLaunchKernelExC}, {@code cudaMemcpyAsync}, {@code cudaMemsetAsync}, MTIA's
 * {@code runFunction - job_prep_and_submit_for_execution}), ROCm's counterparts, which HTA does not list, and any
 * other runtime's call that launched work ({@link LaunchCalls}). Times are nanoseconds.
 *
 * @param rank the rank
 * @param launches every launch, in the order of the device rows
 */
public record Launches(int rank, List<Launch> launches) {

    /** HTA's columns, after the rank. */
    public static final List<String> COLUMNS = List.of("rank", "correlation", "cpu_duration", "gpu_duration",
            "launch_delay");
    /** The summary's columns. */
    public static final List<String> SUMMARY_COLUMNS = List.of("rank", "launches", "short_kernels",
            "runtime_outliers", "launch_delay_outliers", "runtime_cutoff", "launch_delay_cutoff");
    /** HTA's default cut-offs, in microseconds: a launch call over 50 us, a delay over 100 us, is an outlier. */
    public static final long RUNTIME_CUTOFF_US = 50;
    public static final long LAUNCH_DELAY_CUTOFF_US = 100;

    /**
     * One launch.
     *
     * @param correlation the runtime call's and the work's {@code correlation}
     * @param cpuNanos the launch call's duration
     * @param gpuNanos the work's duration
     * @param delayNanos from the call's end to the work's start, 0 when the work started first
     */
    public record Launch(long correlation, long cpuNanos, long gpuNanos, long delayNanos) {
    }

    /** The launches of a rank's device work. */
    public static Launches of(int rank, DeviceWork work) {
        DeviceRows rows = work.rows();
        List<Launch> launches = new ArrayList<>();
        for (int k = 0; k < work.size(); k++) {
            int i = work.row(k);
            int c = work.launch(k, LaunchCalls.LAUNCH_STATS);
            if (c >= 0) {
                launches.add(new Launch(rows.flowId(i), work.launchEnd(k) - work.launchStart(k), work.duration(k),
                        Math.max(0, work.start(k) - work.launchEnd(k))));
            }
        }
        return new Launches(rank, List.copyOf(launches));
    }

    /** The launches as rows of {@link #COLUMNS}, times in microseconds. */
    public List<List<Object>> rows() {
        List<List<Object>> out = new ArrayList<>(launches.size());
        for (Launch l : launches) {
            out.add(List.of(rank, l.correlation(), l.cpuNanos() / 1000.0, l.gpuNanos() / 1000.0,
                    l.delayNanos() / 1000.0));
        }
        return out;
    }

    /**
     * The summary row ({@link #SUMMARY_COLUMNS}), as HTA's charts of the launches select them: how many launches;
     * short kernels, whose work ran shorter than its launch call (a call within the runtime cut-off); launch calls over
     * the runtime cut-off; delays over the delay cut-off (cut-offs in microseconds).
     */
    public List<Object> summary(long runtimeCutoffUs, long launchDelayCutoffUs) {
        long shortKernels = 0;
        long slowCalls = 0;
        long lateStarts = 0;
        for (Launch l : launches) {
            shortKernels += l.cpuNanos() <= runtimeCutoffUs * 1000 && l.gpuNanos() < l.cpuNanos() ? 1 : 0;
            slowCalls += l.cpuNanos() > runtimeCutoffUs * 1000 ? 1 : 0;
            lateStarts += l.delayNanos() > launchDelayCutoffUs * 1000 ? 1 : 0;
        }
        return List.of(rank, (long) launches.size(), shortKernels, slowCalls, lateStarts, runtimeCutoffUs,
                launchDelayCutoffUs);
    }
}
