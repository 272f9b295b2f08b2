package dev.vantage.profiler.api;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The statistics of all events with one key, one row of {@link KeyAverages}. Times are nanoseconds; device
 * figures are 0 when the events launched no device work.
 *
 * <p>An interface, so that a later release can add a statistic without breaking code that reads the others; the
 * profiler implements it.
 */
@ProviderType
public interface EventAverage {

    /** Returns the event name. */
    String key();

    /** Returns how many events have the key. */
    long count();

    /** Returns the sum of their durations. */
    long cpuTotalNanos();

    /** Returns the sum of their durations less the durations of the events nested directly inside. */
    long selfCpuNanos();

    /** Returns the device time of the kernels they and the events nested inside them launched. */
    long deviceTotalNanos();

    /** Returns the device time of the kernels they launched themselves. */
    long selfDeviceNanos();

    /**
     * Returns the input shapes, as torch prints them ({@code [[8, 16], [16]]}), when grouped by them; otherwise the
     * empty string.
     */
    String inputShapes();

    /** Returns the innermost frames of the calling Java code, when grouped by stack; otherwise empty. */
    List<String> stack();

    /** Returns the floating-point operations by formula, summed; 0 when not counted. */
    long flops();

    /** Returns the median duration. */
    long p50Nanos();

    /** Returns the 99th percentile duration. */
    long p99Nanos();

    /** Returns the longest duration. */
    long maxNanos();

    /** Returns the host memory allocated less freed, nested events included; 0 unless memory was profiled. */
    long cpuMemoryBytes();

    /** Returns the host memory allocated less freed by the events themselves. */
    long selfCpuMemoryBytes();

    /** Returns the device memory allocated less freed, nested events included. */
    long deviceMemoryBytes();

    /** Returns the device memory allocated less freed by the events themselves. */
    long selfDeviceMemoryBytes();

    /** Returns the average host time per call, in nanoseconds (0 when there are no events). */
    default double cpuTimeAvgNanos() {
        return count() == 0 ? 0 : (double) cpuTotalNanos() / count();
    }

    /** Returns the average device time per call, in nanoseconds (0 when there are no events). */
    default double deviceTimeAvgNanos() {
        return count() == 0 ? 0 : (double) deviceTotalNanos() / count();
    }
}
