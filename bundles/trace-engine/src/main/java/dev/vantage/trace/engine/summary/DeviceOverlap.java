package dev.vantage.trace.engine.summary;

/**
 * A trace's (a rank's) device time split as {@code vantage analyze} splits it, summed over its devices: the
 * {@code overlap} analysis's columns over all device work, and the {@code idle_time} analysis's over the steps.
 * The report's Distributed view shows computation ({@code computeNanos - overlappedNanos}), overlapped
 * communication, non-overlapped communication ({@code communicationNanos - overlappedNanos}) and other
 * ({@code idleNanos}).
 *
 * @param computeNanos time with compute work (kernels, copies, fills) running
 * @param communicationNanos time with communication work running
 * @param overlappedNanos time with both running
 * @param stepNanos the steps' time, once per device that did work
 * @param busyNanos the part of it with device work attributed to the step running
 */
public record DeviceOverlap(long computeNanos, long communicationNanos, long overlappedNanos, long stepNanos,
        long busyNanos) {

    /** Nothing: a trace without device work. */
    public static final DeviceOverlap NONE = new DeviceOverlap(0, 0, 0, 0, 0);

    /** Communication while nothing computed. */
    public long exposedCommunicationNanos() {
        return communicationNanos - overlappedNanos;
    }

    /** The steps' time without device work ({@code idle_time}'s {@code idle_ns}). */
    public long idleNanos() {
        return stepNanos - busyNanos;
    }
}
