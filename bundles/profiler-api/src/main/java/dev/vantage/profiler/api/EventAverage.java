package dev.vantage.profiler.api;

import java.util.List;
import java.util.Objects;

/**
 * The statistics of all events with one key, one row of {@link KeyAverages}. Times are nanoseconds; device
 * figures are 0 when the events launched no device work.
 *
 * @param key the event name
 * @param count how many events
 * @param cpuTotalNanos the sum of their durations
 * @param selfCpuNanos the sum of their durations less the durations of the events nested directly inside
 * @param deviceTotalNanos device time of the kernels they and the events nested inside them launched
 * @param selfDeviceNanos device time of the kernels they launched themselves
 * @param inputShapes the input shapes, as torch prints them ({@code [[8, 16], [16]]}), when grouped by them;
 *     otherwise the empty string
 * @param stack the innermost frames of the calling Java code, when grouped by stack; otherwise empty
 * @param flops floating-point operations by formula, summed; 0 when not counted
 * @param p50Nanos the median duration
 * @param p99Nanos the 99th percentile duration
 * @param maxNanos the longest duration
 * @param cpuMemoryBytes host memory allocated less freed, nested events included; 0 unless memory was profiled
 * @param selfCpuMemoryBytes host memory allocated less freed by the events themselves
 * @param deviceMemoryBytes device memory allocated less freed, nested events included
 * @param selfDeviceMemoryBytes device memory allocated less freed by the events themselves
 */
public record EventAverage(String key, long count, long cpuTotalNanos, long selfCpuNanos, long deviceTotalNanos,
        long selfDeviceNanos, String inputShapes, List<String> stack, long flops, long p50Nanos, long p99Nanos,
        long maxNanos, long cpuMemoryBytes, long selfCpuMemoryBytes, long deviceMemoryBytes,
        long selfDeviceMemoryBytes) {

    /** Checks and copies the fields. */
    public EventAverage {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(inputShapes, "inputShapes");
        stack = List.copyOf(stack);
    }

    /** Returns the average host time per call, in nanoseconds (0 when there are no events). */
    public double cpuTimeAvgNanos() {
        return count == 0 ? 0 : (double) cpuTotalNanos / count;
    }

    /** Returns the average device time per call, in nanoseconds (0 when there are no events). */
    public double deviceTimeAvgNanos() {
        return count == 0 ? 0 : (double) deviceTotalNanos / count;
    }
}
