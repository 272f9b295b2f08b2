package dev.vantage.trace.engine.summary;

import java.util.Arrays;

/**
 * The one definition of a straggler, which {@code vantage report} (over trace files), {@code vantage analyze} (its
 * {@code stragglers.sql}, over Parquet) and {@code vantage board}'s Distributed view share: a rank's step time is the mean of its steps' times
 * ({@code TraceStep.durationNanos()}), and a rank whose step time is at least {@link #RATIO} times the median of the
 * ranks' step times is a straggler. The median is SQL's {@code median()}: the middle value, or the mean of the middle
 * two.
 */
public final class Stragglers {

    /** A rank at least this many times the median rank's mean step time is a straggler. */
    public static final double RATIO = 1.10;

    private Stragglers() {
    }

    /** Returns a rank's step time: the mean of its steps' times, as SQL's {@code avg(duration_ns)}; 0 for none. */
    public static double meanStepNanos(java.util.List<StepStats> steps) {
        return steps.isEmpty() ? 0 : steps.stream().mapToLong(StepStats::durationNanos).sum() / (double) steps.size();
    }

    /** Returns the median of values as SQL's {@code median()} does; 0 for none. */
    public static double median(double[] values) {
        if (values.length == 0) {
            return 0;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /** Returns whether a rank's mean step time makes it a straggler against the median of the ranks. */
    public static boolean isStraggler(double meanStepNanos, double medianNanos) {
        return medianNanos > 0 && meanStepNanos >= RATIO * medianNanos;
    }
}
