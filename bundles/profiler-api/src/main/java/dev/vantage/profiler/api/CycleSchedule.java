package dev.vantage.profiler.api;

/**
 * torch's cycle schedule, as returned by {@link Schedule#of}.
 *
 * @param waitSteps idle steps at the start of each cycle (torch's {@code wait}, a name Java reserves)
 * @param warmupSteps warm-up steps after them
 * @param activeSteps recorded steps after them, 1 or more
 * @param repeat how many cycles, 0 for no limit
 * @param skipFirst steps skipped before the first cycle
 */
public record CycleSchedule(int waitSteps, int warmupSteps, int activeSteps, int repeat, int skipFirst)
        implements Schedule {

    /**
     * Checks the numbers.
     *
     * @throws IllegalArgumentException if {@code active} is below 1 or any other number is negative
     */
    public CycleSchedule {
        check("wait", waitSteps, 0);
        check("warmup", warmupSteps, 0);
        check("active", activeSteps, 1);
        check("repeat", repeat, 0);
        check("skipFirst", skipFirst, 0);
    }

    private static void check(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException("schedule " + name + " must be " + min + " or more, not " + value);
        }
    }

    /** Returns the number of steps in one cycle. */
    public int cycleLength() {
        return waitSteps + warmupSteps + activeSteps;
    }

    @Override
    public ProfilerAction action(long step) {
        if (step < skipFirst) {
            return ProfilerAction.NONE;
        }
        long s = step - skipFirst;
        int cycle = cycleLength();
        if (repeat > 0 && s / cycle >= repeat) {
            return ProfilerAction.NONE;
        }
        long mod = s % cycle;
        if (mod < waitSteps) {
            return ProfilerAction.NONE;
        }
        if (mod < waitSteps + warmupSteps) {
            return ProfilerAction.WARMUP;
        }
        return mod < cycle - 1 ? ProfilerAction.RECORD : ProfilerAction.RECORD_AND_SAVE;
    }
}
