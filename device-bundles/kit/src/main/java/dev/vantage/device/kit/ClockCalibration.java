package dev.vantage.device.kit;

import java.util.function.LongSupplier;

/**
 * Converts device clock ticks to host {@link System#nanoTime()} nanoseconds, as Kineto's vendor plugins convert
 * CUPTI or Ascend {@code syscnt} timestamps ({@code reference: device-plugins.md §1.8}). A {@link Sample} pairs a
 * device clock read with the host clock read before and after it; a calibration fits a line through a sample
 * taken when recording starts and one taken when it stops, so the device clock's offset and its drift (a rate a
 * little off its nominal frequency) both cancel. When the two samples are less than {@link #MIN_SPAN_NANOS} apart
 * the slope is too noisy and the nominal frequency is used instead.
 *
 * <p>Error: at a sample the conversion is off by at most half the host interval around the device read plus one
 * tick; between the samples, a linear drift adds nothing more. {@link #errorBoundNanos()} states the bound.
 */
public final class ClockCalibration {

    /** Below this span between the samples, the nominal frequency gives the slope. */
    public static final long MIN_SPAN_NANOS = 1_000_000;
    private static final int TRIES = 9;

    /**
     * One reading of both clocks.
     *
     * @param hostNanos the host time the device read is taken to have happened at: the middle of the bracket
     * @param ticks the device clock read
     * @param halfWidthNanos half the host interval that brackets the device read
     */
    public record Sample(long hostNanos, long ticks, long halfWidthNanos) {
    }

    private final Sample origin;
    private final double nanosPerTick;
    private final long errorBound;

    private ClockCalibration(Sample origin, double nanosPerTick, long errorBound) {
        this.origin = origin;
        this.nanosPerTick = nanosPerTick;
        this.errorBound = errorBound;
    }

    /** Reads the device clock a few times between host reads and keeps the tightest bracket. */
    public static Sample sample(LongSupplier deviceClock) {
        Sample best = null;
        for (int i = 0; i < TRIES; i++) {
            long before = System.nanoTime();
            long ticks = deviceClock.getAsLong();
            long after = System.nanoTime();
            long half = (after - before + 1) / 2;
            if (best == null || half < best.halfWidthNanos()) {
                best = new Sample(before + (after - before) / 2, ticks, half);
            }
        }
        return best;
    }

    /**
     * Fits a calibration through two samples.
     *
     * @param start taken when recording started
     * @param stop taken when it stopped; may be null, and then the nominal frequency gives the slope
     * @param nominalFrequency the device clock's rate in ticks per second
     * @throws IllegalArgumentException if the frequency is not positive
     */
    public static ClockCalibration fit(Sample start, Sample stop, long nominalFrequency) {
        if (nominalFrequency <= 0) {
            throw new IllegalArgumentException("clock frequency must be positive, not " + nominalFrequency);
        }
        double nominal = 1e9 / nominalFrequency;
        double slope = nominal;
        long half = start.halfWidthNanos();
        if (stop != null) {
            half = Math.max(half, stop.halfWidthNanos());
            long span = stop.hostNanos() - start.hostNanos();
            long ticks = stop.ticks() - start.ticks();
            if (span >= MIN_SPAN_NANOS && ticks > 0) {
                slope = (double) span / ticks;
            }
        }
        long tick = (long) Math.ceil(nominal);
        return new ClockCalibration(start, slope, half + tick);
    }

    /** Converts a device clock read to host nanoseconds. */
    public long toHostNanos(long ticks) {
        return origin.hostNanos() + Math.round((ticks - origin.ticks()) * nanosPerTick);
    }

    /** Returns the bound on the conversion's error between the two samples, in nanoseconds. */
    public long errorBoundNanos() {
        return errorBound;
    }

    /** Returns the fitted length of one tick in host nanoseconds. */
    public double nanosPerTick() {
        return nanosPerTick;
    }
}
