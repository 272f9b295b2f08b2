package dev.vantage.analysis.trace;

/**
 * The calls of one host operator in a trace, grouped by name or by name and input shapes. Times are nanoseconds.
 *
 * @param name the operator's name, such as {@code aten::addmm}; never null
 * @param inputShapes the input shapes in torch_npu's notation ({@code 8,16;16}): dims joined by commas, inputs by
 *     semicolons; null when grouped by name only, empty when no shapes were recorded
 * @param count how many calls
 * @param selfNanos the calls' time less the time of host events nested directly inside, summed
 * @param totalNanos the calls' time, summed
 * @param deviceSelfNanos the device time of the work the calls launched themselves ({@code External id})
 * @param deviceTotalNanos the device time of the work the calls and the host events nested in them launched
 * @param meanNanos {@code totalNanos / count}, rounded down
 * @param p99Nanos the 99th percentile of one call's total time, by nearest rank
 */
public record OpStats(String name, String inputShapes, long count, long selfNanos, long totalNanos,
        long deviceSelfNanos, long deviceTotalNanos, long meanNanos, long p99Nanos) {
}
