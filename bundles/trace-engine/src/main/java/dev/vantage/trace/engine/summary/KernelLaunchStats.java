package dev.vantage.trace.engine.summary;

/**
 * The kernels of one name and one launch geometry (the kernel view of the TensorBoard plugin, with the geometry
 * CUPTI records). Averages are weighted by the kernels' durations, as the plugin weights them; {@code NaN} when no
 * kernel of the row carried the value.
 *
 * @param name the kernel's name
 * @param geometry {@code grid [x,y,z] block [x,y,z] regs R smem S}, or the empty string when the trace has none
 * @param count how many launches
 * @param totalNanos their time, summed
 * @param meanOccupancyPct CUPTI's {@code est. achieved occupancy %}, weighted by duration
 * @param meanBlocksPerSm {@code blocks per SM}, weighted by duration
 * @param meanWarpsPerSm {@code warps per SM}, weighted by duration
 * @param tensorCores whether the kernel runs on Tensor Cores, by its name (see {@link TensorCores})
 */
public record KernelLaunchStats(String name, String geometry, long count, long totalNanos, Double meanOccupancyPct,
        Double meanBlocksPerSm, Double meanWarpsPerSm, boolean tensorCores) {
}
