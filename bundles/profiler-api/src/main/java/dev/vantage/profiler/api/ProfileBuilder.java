package dev.vantage.profiler.api;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Fluent settings for a new profile, obtained from {@link Profiler#profile()}:
 * <pre>{@code
 * try (Profile p = profiler.profile().activities(Activity.CPU).start()) {
 *     model.trainStep();
 * }
 * }</pre>
 * Not thread-safe; use it on one thread and throw it away after {@link #start()}.
 */
public final class ProfileBuilder {

    private final Function<ProfileOptions, Profile> starter;
    private Set<Activity> activities = EnumSet.of(Activity.CPU);

    /**
     * Creates a builder that hands its options to {@code starter}; called by {@link Profiler} implementations.
     *
     * @param starter starts a profile with the built options; not null
     */
    public ProfileBuilder(Function<ProfileOptions, Profile> starter) {
        this.starter = Objects.requireNonNull(starter, "starter");
    }

    /**
     * Sets what to record; the default is CPU only.
     *
     * @param first an activity; not null
     * @param more further activities; none null
     * @return this builder
     */
    public ProfileBuilder activities(Activity first, Activity... more) {
        EnumSet<Activity> set = EnumSet.of(Objects.requireNonNull(first, "first"));
        set.addAll(Arrays.asList(more));
        this.activities = set;
        return this;
    }

    /**
     * Sets what to record; the default is CPU only.
     *
     * @param activities a non-empty set; not null
     * @return this builder
     * @throws IllegalArgumentException if the set is empty
     */
    public ProfileBuilder activities(Set<Activity> activities) {
        if (activities.isEmpty()) {
            throw new IllegalArgumentException("activities must not be empty");
        }
        this.activities = EnumSet.copyOf(activities);
        return this;
    }

    /** Returns the options set so far. */
    public ProfileOptions build() {
        return new ProfileOptions(activities);
    }

    /**
     * Starts recording with these options.
     *
     * @return the profile, in state {@link ProfileState#RECORDING}
     * @throws IllegalStateException if another profile is recording
     * @throws IllegalArgumentException if an activity has no device bundle installed
     */
    public Profile start() {
        return starter.apply(build());
    }
}
