package dev.vantage.profiler.api;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of one profile, as built by {@link ProfileBuilder}.
 *
 * @param activities what to record; never empty
 */
public record ProfileOptions(Set<Activity> activities) {

    /**
     * Creates options, copying the activity set.
     *
     * @throws NullPointerException if {@code activities} is null
     * @throws IllegalArgumentException if {@code activities} is empty
     */
    public ProfileOptions {
        Objects.requireNonNull(activities, "activities");
        if (activities.isEmpty()) {
            throw new IllegalArgumentException("activities must not be empty");
        }
        activities = Set.copyOf(EnumSet.copyOf(activities));
    }
}
