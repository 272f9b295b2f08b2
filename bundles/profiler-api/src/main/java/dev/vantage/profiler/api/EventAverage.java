package dev.vantage.profiler.api;

import java.util.Objects;

/**
 * The statistics of all events with one key, one row of {@link KeyAverages}.
 *
 * @param key the event name
 * @param count how many events
 * @param cpuTotalNanos the sum of their durations
 * @param selfCpuNanos the sum of their durations less the time of the events nested directly inside them
 */
public record EventAverage(String key, long count, long cpuTotalNanos, long selfCpuNanos) {

    /** Checks the key. */
    public EventAverage {
        Objects.requireNonNull(key, "key");
    }

    /** Returns the average duration, in nanoseconds (0 when there are no events). */
    public double cpuTimeAvgNanos() {
        return count == 0 ? 0 : (double) cpuTotalNanos / count;
    }
}
