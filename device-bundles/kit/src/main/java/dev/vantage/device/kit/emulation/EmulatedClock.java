package dev.vantage.device.kit.emulation;

/**
 * A device clock: counts ticks at a nominal frequency from an arbitrary offset, and drifts, running a little fast
 * or slow against the host, as a real device's counter does. Its reads must be calibrated to be compared with host
 * time. Thread-safe.
 */
public final class EmulatedClock {

    private final long frequency;
    private final long offsetTicks;
    private final double ticksPerNano;
    private final long origin = System.nanoTime();

    /**
     * Creates a clock.
     *
     * @param frequency the nominal rate in ticks per second
     * @param driftPpm how far the real rate is off the nominal one, in parts per million (may be negative)
     * @param offsetTicks the count at the moment of creation
     * @throws IllegalArgumentException if the frequency is not positive or the drift is beyond ±1000 ppm
     */
    public EmulatedClock(long frequency, double driftPpm, long offsetTicks) {
        if (frequency <= 0) {
            throw new IllegalArgumentException("clock frequency must be positive, not " + frequency);
        }
        if (Math.abs(driftPpm) > 1000) {
            throw new IllegalArgumentException("clock drift must be within ±1000 ppm, not " + driftPpm);
        }
        this.frequency = frequency;
        this.offsetTicks = offsetTicks;
        this.ticksPerNano = frequency / 1e9 * (1 + driftPpm * 1e-6);
    }

    /** Returns the current count. */
    public long now() {
        return offsetTicks + (long) ((System.nanoTime() - origin) * ticksPerNano);
    }

    /** Returns the nominal rate in ticks per second. */
    public long frequency() {
        return frequency;
    }
}
