package dev.vantage.profiler.api;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Which {@link ProfilerAction} a profile takes at each step; steps are numbered from 0. Build the usual one with
 * {@link #of}, or implement it for any other pattern.
 */
@ConsumerType
@FunctionalInterface
public interface Schedule {

    /**
     * Returns the action for a step.
     *
     * @param step the step number, 0 or greater
     * @return the action; never null
     */
    ProfilerAction action(long step);

    /**
     * The schedule of torch's {@code schedule(wait, warmup, active, repeat, skip_first)}: the first
     * {@code skipFirst} steps do nothing; then cycles of {@code wait} idle steps, {@code warmup} warm-up steps and
     * {@code active} recorded steps follow, the last recorded step of each cycle saving the trace; after
     * {@code repeat} cycles (0 for no limit) nothing more is recorded.
     *
     * @throws IllegalArgumentException if {@code active} is below 1 or any other number is negative; the message
     *     names the value
     */
    static Schedule of(int wait, int warmup, int active, int repeat, int skipFirst) {
        return new CycleSchedule(wait, warmup, active, repeat, skipFirst);
    }
}
