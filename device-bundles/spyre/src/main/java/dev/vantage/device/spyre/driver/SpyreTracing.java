package dev.vantage.device.spyre.driver;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.device.kit.ActivityRecord;

/**
 * The Spyre tracing library, as AIUPTI exposes it: a bounded activity-record buffer the runtime fills while it is
 * enabled (runtime calls on the host clock, compute, copies and fills on the device clock, joined by the runtime's
 * correlation id), a per-thread external correlation stack, and device clock reads. A {@link SpyreDriver} loads it
 * at the first profile that asks for device activity ({@link SpyreDriver#tracing()}), since a loaded library arms
 * the runtime's per-op telemetry and costs every op; it is never unloaded. Thread-safe.
 */
@ConsumerType
public interface SpyreTracing {

    /** Returns the library's name and version, such as {@code libaiupti 1.0 (emulated)}, for trace metadata. */
    String description();

    /**
     * Starts recording into a buffer of at most {@code maxRecords} records on every device; records beyond it
     * are dropped and counted. Resets the buffer and the drop count. Devices initialised later record too.
     */
    void enableActivity(long maxRecords);

    /** Stops recording; what was recorded stays until {@link #flushActivity()}. */
    void disableActivity();

    /** Returns true between {@link #enableActivity} and {@link #disableActivity}. */
    boolean activityEnabled();

    /** Hands over and forgets every device's records. */
    List<ActivityRecord> flushActivity();

    /** Returns how many records the full buffers dropped since {@link #enableActivity}. */
    long droppedRecords();

    /** Pushes an external correlation id on the calling thread's stack; runtime calls record the top one. */
    void pushExternalCorrelation(long id);

    /** Pops the calling thread's external correlation id; does nothing on an empty stack. */
    void popExternalCorrelation();

    /** Returns the external correlation id on top of the calling thread's stack, or -1 when it is empty. */
    long externalCorrelation();

    /**
     * Reads a device's clock, in ticks; the clock runs from power-on, so reading it does not initialise the
     * device.
     *
     * @throws IllegalArgumentException if there is no such device
     */
    long deviceTimestamp(int device);

    /**
     * Returns a device clock's nominal rate, in ticks per second. The session fits the clock to the host clock
     * from reads at its start and stop; a library that already stamps host nanoseconds returns 1,000,000,000.
     */
    long timestampFrequency(int device);
}
