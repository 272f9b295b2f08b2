package dev.vantage.trace.engine.summary;

/**
 * One row of a trace's key averages, as torch's {@code key_averages()} and the profile's table have it: the events of
 * one name, or of one name and input shapes. Times are nanoseconds.
 *
 * @param name the event's name, such as {@code aten::addmm} or {@code ProfilerStep#3}; never null
 * @param kind the Kineto category of the events: {@code cpu_op} for an operator (the TensorBoard plugin's operator
 *     view shows those alone), {@code user_annotation}, a runtime's calls, {@code kernel}, ...
 * @param inputShapes the input shapes as torch prints them ({@code [[8, 16], [16]]}); null when grouped by name
 *     only, empty when no shapes were recorded
 * @param count how many events
 * @param selfNanos their host time less the time of host events nested directly inside and of the runtime calls they
 *     made, summed (0 for device work)
 * @param totalNanos their host time, summed (0 for device work)
 * @param deviceSelfNanos the device time of the work they launched themselves (their own, for device work)
 * @param deviceTotalNanos the device time of the work they and the host events nested in them launched
 * @param meanNanos the mean of one event's time (host time, or device time for device work), rounded down
 * @param p99Nanos the 99th percentile of one event's time, from a histogram of three significant digits
 */
public record OpStats(String name, String kind, String inputShapes, long count, long selfNanos, long totalNanos,
        long deviceSelfNanos, long deviceTotalNanos, long meanNanos, long p99Nanos) {

    /** Returns whether the row is of device work (kernels, copies, fills), which has device time only. */
    public boolean isDeviceWork() {
        return kind.equals("kernel") || kind.equals("gpu_memcpy") || kind.equals("gpu_memset");
    }

    /** Returns whether the row is of host operators ({@code cpu_op}), the rows of the TensorBoard plugin's view. */
    public boolean isOperator() {
        return kind.equals("cpu_op");
    }
}
