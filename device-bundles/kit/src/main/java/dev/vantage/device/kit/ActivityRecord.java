package dev.vantage.device.kit;

import java.util.Map;
import java.util.Objects;

import dev.vantage.profiler.trace.EventKind;

/**
 * One record of a device's activity buffer, as a vendor tracing library delivers it (CUPTI's activity records,
 * MSPTI's, AIUPTI's). Two shapes share it:
 * <ul>
 *   <li>a runtime call on a host thread ({@link EventKind#RUNTIME}): stamped on the host clock
 *       ({@link System#nanoTime()}), with the thread, and the external correlation id that was on top of that
 *       thread's stack when it was made;</li>
 *   <li>work on a device stream ({@link EventKind#KERNEL}, {@link EventKind#GPU_MEMCPY},
 *       {@link EventKind#GPU_MEMSET}): stamped in device clock ticks, with no thread and no external id.</li>
 * </ul>
 * Both carry the driver's own correlation id, which joins a launch to the work it launched.
 *
 * @param kind what the record is
 * @param name the API, kernel or copy name
 * @param deviceIndex the device
 * @param streamId the stream the work ran on, or the stream a runtime call addressed
 * @param start the start: host nanoseconds for a runtime call, device ticks for device work
 * @param end the end, on the same clock
 * @param correlation the driver's correlation id; 0 or more
 * @param externalId for a runtime call, the external correlation id pushed on its thread, or -1
 * @param threadId for a runtime call, the Java thread id; -1 for device work
 * @param args the device's own facts about the record, such as {@code Accelerator Core} or {@code bytes}
 */
public record ActivityRecord(EventKind kind, String name, int deviceIndex, long streamId, long start, long end,
        long correlation, long externalId, long threadId, Map<String, String> args) {

    /** Checks and copies the fields. */
    public ActivityRecord {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, "name");
        args = Map.copyOf(args);
        if (end < start) {
            throw new IllegalArgumentException("record " + name + " ends before it starts");
        }
    }

    /** Returns true for a runtime call, stamped on the host clock. */
    public boolean onHost() {
        return kind == EventKind.RUNTIME;
    }
}
