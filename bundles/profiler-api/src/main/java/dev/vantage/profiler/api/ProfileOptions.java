package dev.vantage.profiler.api;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one profile, as built by {@link ProfileBuilder}.
 *
 * @param activities what to record; never empty
 * @param schedule the schedule, or null to record every step and deliver one cycle on stop
 * @param recordShapes records the shape and dtype of every input of every op
 * @param withStack records the calling Java frames of every op
 * @param withFlops counts floating-point operations of matmul, linear, conv2d, add and mul by formula (records
 *     their shapes)
 * @param handlers called with each completed cycle, in order
 * @param maxEvents the most host events one recording window keeps, further ones dropped and counted; 0 for the
 *     profiler's configured cap
 */
public record ProfileOptions(Set<Activity> activities, Schedule schedule, boolean recordShapes, boolean withStack,
        boolean withFlops, List<TraceReadyHandler> handlers, long maxEvents) {

    /**
     * Checks and copies the fields.
     *
     * @throws NullPointerException if activities or handlers is null
     * @throws IllegalArgumentException if activities is empty or maxEvents negative
     */
    public ProfileOptions {
        Objects.requireNonNull(activities, "activities");
        if (activities.isEmpty()) {
            throw new IllegalArgumentException("activities must not be empty");
        }
        if (maxEvents < 0) {
            throw new IllegalArgumentException("maxEvents must be 0 (the profiler's cap) or more, not " + maxEvents);
        }
        activities = java.util.Collections.unmodifiableSet(new java.util.TreeSet<>(activities));
        handlers = List.copyOf(handlers);
    }

    /** Options with the profiler's configured event cap. */
    public ProfileOptions(Set<Activity> activities, Schedule schedule, boolean recordShapes, boolean withStack,
            boolean withFlops, List<TraceReadyHandler> handlers) {
        this(activities, schedule, recordShapes, withStack, withFlops, handlers, 0);
    }

    /** Options that record the given activities every step, with nothing extra. */
    public static ProfileOptions of(Set<Activity> activities) {
        return new ProfileOptions(activities, null, false, false, false, List.of());
    }
}
