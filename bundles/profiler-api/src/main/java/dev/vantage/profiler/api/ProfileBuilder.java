package dev.vantage.profiler.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Fluent settings for a new profile, obtained from {@link Profiler#profile()}, in the spirit of
 * {@code torch.profiler.profile(...)}:
 * <pre>{@code
 * try (Profile p = profiler.profile()
 *         .activities(Activity.CPU)
 *         .schedule(Schedule.of(1, 1, 3, 2, 0))
 *         .onTraceReady(cycle -> cycle.exportChromeTrace(Path.of("trace-" + cycle.cycle() + ".json.gz")))
 *         .recordShapes(true)
 *         .start()) {
 *     for (Batch b : data) {
 *         model.trainStep(b);
 *         p.step();
 *     }
 * }
 * }</pre>
 * Not thread-safe; use it on one thread and throw it away after {@link #start()}.
 */
public final class ProfileBuilder {

    private final Function<ProfileOptions, Profile> starter;
    private long maxEvents;
    private Set<Activity> activities = Set.of(Activity.CPU);
    private Schedule schedule;
    private boolean recordShapes;
    private boolean withStack;
    private boolean withFlops;
    private final List<TraceReadyHandler> handlers = new ArrayList<>();

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
     * @return this builder
     */
    public ProfileBuilder activities(Activity first, Activity... more) {
        Set<Activity> set = new java.util.TreeSet<>();
        set.add(Objects.requireNonNull(first, "first"));
        set.addAll(Arrays.asList(more));
        this.activities = set;
        return this;
    }

    /**
     * Sets what to record; the default is CPU only.
     *
     * @throws IllegalArgumentException if the set is empty
     * @return this builder
     */
    public ProfileBuilder activities(Set<Activity> activities) {
        if (activities.isEmpty()) {
            throw new IllegalArgumentException("activities must not be empty");
        }
        this.activities = new java.util.TreeSet<>(activities);
        return this;
    }

    /**
     * Caps the host events one recording window keeps; further events are dropped and counted in the trace. The
     * default is the profiler's configured cap.
     *
     * @throws IllegalArgumentException if the cap is not positive
     * @return this builder
     */
    public ProfileBuilder maxEvents(long maxEvents) {
        if (maxEvents <= 0) {
            throw new IllegalArgumentException("maxEvents must be positive, not " + maxEvents);
        }
        this.maxEvents = maxEvents;
        return this;
    }

    /**
     * Sets the schedule; without one, every step is recorded and one cycle is delivered on stop.
     *
     * @return this builder
     */
    public ProfileBuilder schedule(Schedule schedule) {
        this.schedule = Objects.requireNonNull(schedule, "schedule");
        return this;
    }

    /**
     * Adds a handler for completed cycles; handlers run in the order added.
     *
     * @return this builder
     */
    public ProfileBuilder onTraceReady(TraceReadyHandler handler) {
        handlers.add(Objects.requireNonNull(handler, "handler"));
        return this;
    }

    /**
     * Records the shape and dtype of every op input (off by default).
     *
     * @return this builder
     */
    public ProfileBuilder recordShapes(boolean recordShapes) {
        this.recordShapes = recordShapes;
        return this;
    }

    /**
     * Records allocations and frees reported by the installed allocators, as torch's {@code profile_memory}: the
     * same as adding {@link Activity#MEM} to the activities.
     *
     * @return this builder
     */
    public ProfileBuilder profileMemory(boolean profileMemory) {
        Set<Activity> set = new java.util.TreeSet<>(activities);
        if (profileMemory) {
            set.add(Activity.MEM);
        } else {
            set.remove(Activity.MEM);
        }
        if (!set.isEmpty()) {
            activities = set;
        }
        return this;
    }

    /**
     * Records the calling Java frames of every op (off by default; costs a stack walk per op).
     *
     * @return this builder
     */
    public ProfileBuilder withStack(boolean withStack) {
        this.withStack = withStack;
        return this;
    }

    /**
     * Counts floating-point operations by formula for matmul, linear, conv2d, add and mul (off by default).
     *
     * @return this builder
     */
    public ProfileBuilder withFlops(boolean withFlops) {
        this.withFlops = withFlops;
        return this;
    }

    /** Returns the options set so far. */
    public ProfileOptions build() {
        return new ProfileOptions(activities, schedule, recordShapes, withStack, withFlops, handlers, maxEvents);
    }

    /**
     * Starts the profile at step 0.
     *
     * @return the profile, in state {@link ProfileState#RECORDING}
     * @throws IllegalStateException if another profile is running
     * @throws IllegalArgumentException if an activity has no device bundle installed; the message lists the
     *     available ones
     */
    public Profile start() {
        return starter.apply(build());
    }
}
