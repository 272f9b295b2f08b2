package dev.vantage.device.kit;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The tracing side of a device driver: what {@link DriverSession} needs from a vendor library (CUPTI, MSPTI,
 * AIUPTI, or an emulation of one). A device bundle's own driver interface extends it with memory, streams and
 * launches. Thread-safe.
 */
@ConsumerType
public interface TracingDriver {

    /** Returns the device type, lower case, such as {@code npu}. */
    String deviceType();

    /** Returns how many devices the driver drives; indices run from 0. */
    int deviceCount();

    /** Returns true when the driver emulates its devices rather than driving hardware. */
    boolean emulated();

    /** Returns a device's properties for the trace's {@code deviceProperties} (name, memory, cores, ...). */
    Map<String, String> properties(int device);

    /**
     * Starts recording activity into a buffer of at most {@code maxRecords} records; records beyond it are
     * dropped and counted. Resets the buffer and the drop count.
     */
    void enableActivity(long maxRecords);

    /** Stops recording activity; what was recorded stays until {@link #flushActivity()}. */
    void disableActivity();

    /** Hands over and forgets every record in the buffer. */
    List<ActivityRecord> flushActivity();

    /** Returns how many records were dropped because the buffer was full, since {@link #enableActivity}. */
    long droppedRecords();

    /** Pushes an external correlation id on the calling thread's stack; launches record the top one. */
    void pushExternalCorrelation(long id);

    /** Pops the calling thread's external correlation id. */
    void popExternalCorrelation();

    /** Reads a device's clock, in ticks. */
    long deviceTimestamp(int device);

    /** Returns a device's nominal clock rate, in ticks per second. */
    long timestampFrequency(int device);

    /**
     * Waits until all work launched on a device has finished, or the timeout passed.
     *
     * @return true if the device is idle, false on timeout
     */
    boolean synchronizeDevice(int device, long timeoutNanos);
}
