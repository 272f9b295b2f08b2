package dev.vantage.profiler.spi;

import java.util.Map;
import java.util.Objects;

import dev.vantage.profiler.trace.EventKind;

/**
 * One activity a device performed, already converted to the host clock.
 *
 * @param name the kernel or copy name
 * @param kind {@link EventKind#KERNEL}, {@link EventKind#GPU_MEMCPY}, {@link EventKind#GPU_MEMSET},
 *     {@link EventKind#RUNTIME} (a host-side runtime call), {@link EventKind#GC} (a JVM pause), or (since 2.2)
 *     {@link EventKind#MEMORY}: memory the device reported after the fact rather than through
 *     {@code MemoryEvents} as it happened (ONNX Runtime's per-node figures), an instant ({@code startNanos ==
 *     endNanos}) on the launching thread whose figures are {@link #memory()}; it counts for the host op of its
 *     correlation in the memory columns, and a source reports it only when the profile records {@code MEM}
 * @param deviceIndex the device, 0 or greater
 * @param streamId the stream or queue the activity ran on
 * @param startNanos the start on the host's {@link System#nanoTime()} clock
 * @param endNanos the end on the same clock, not before the start
 * @param correlationId the correlation value the core pushed for the host op that was active when the work was
 *     launched ({@link ActivitySession#pushCorrelation}), or -1 when none was active
 * @param launchThreadId the Java thread id of the thread that launched the work, or -1
 * @param flowId the device runtime's own correlation id, joining a launch ({@link EventKind#RUNTIME}) to the work
 *     it launched: Kineto's {@code correlation}, and the id of the {@code ac2g} flow between them; -1 for none
 * @param args the device's own facts about the activity, written into the trace event's {@code args} (values
 *     that are integers are written as numbers): for example {@code Accelerator Core} and {@code Block Num} of an
 *     NPU kernel, {@code bytes} of a copy; empty when there are none. Device work that knows its input shapes may
 *     give them under {@code Input Dims} in torch's text ({@code [[8, 128], [128, 384]]}): tables grouped by input
 *     shape then group it by them (since 2.2)
 * @param memory the figures of a {@link EventKind#MEMORY} report, as numbers; null for every other activity
 *     (since 3.2)
 */
public record DeviceActivity(String name, EventKind kind, int deviceIndex, long streamId, long startNanos,
        long endNanos, long correlationId, long launchThreadId, long flowId, Map<String, String> args,
        Memory memory) {

    /**
     * The figures of a device's memory report, Kineto's {@code [memory]} arguments as numbers.
     *
     * @param address the block's address ({@code Addr}), 0 when not known
     * @param bytes the bytes allocated ({@code Bytes}), negative for a free
     * @param totalAllocated the device's allocated bytes after it ({@code Total Allocated})
     * @param totalReserved the device's reserved bytes after it ({@code Total Reserved})
     * @since 3.2
     */
    public record Memory(long address, long bytes, long totalAllocated, long totalReserved) {
    }

    /**
     * A device's memory report: an instant of kind {@link EventKind#MEMORY} at {@code atNanos} on the launching
     * thread.
     *
     * @since 3.2
     */
    public static DeviceActivity memoryReport(int deviceIndex, long atNanos, long correlationId, long launchThreadId,
            Memory memory) {
        return new DeviceActivity("[memory]", EventKind.MEMORY, deviceIndex, -1, atNanos, atNanos, correlationId,
                launchThreadId, -1, Map.of(), Objects.requireNonNull(memory, "memory"));
    }

    /** An activity that is not a memory report. */
    public DeviceActivity(String name, EventKind kind, int deviceIndex, long streamId, long startNanos,
            long endNanos, long correlationId, long launchThreadId, long flowId, Map<String, String> args) {
        this(name, kind, deviceIndex, streamId, startNanos, endNanos, correlationId, launchThreadId, flowId, args,
                null);
    }

    /** An activity without device-specific facts. */
    public DeviceActivity(String name, EventKind kind, int deviceIndex, long streamId, long startNanos,
            long endNanos, long correlationId, long launchThreadId, long flowId) {
        this(name, kind, deviceIndex, streamId, startNanos, endNanos, correlationId, launchThreadId, flowId,
                Map.of());
    }

    /** An activity not joined to a launch by a runtime correlation id. */
    public DeviceActivity(String name, EventKind kind, int deviceIndex, long streamId, long startNanos,
            long endNanos, long correlationId, long launchThreadId) {
        this(name, kind, deviceIndex, streamId, startNanos, endNanos, correlationId, launchThreadId, -1, Map.of());
    }

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException if the end is before the start, the device index is negative, or a memory
     *     report has no figures
     */
    public DeviceActivity {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        args = Map.copyOf(args);
        if (endNanos < startNanos) {
            throw new IllegalArgumentException("activity " + name + " ends before it starts");
        }
        if (deviceIndex < 0) {
            throw new IllegalArgumentException("negative device index " + deviceIndex);
        }
        if (kind == EventKind.MEMORY && memory == null) {
            throw new IllegalArgumentException("memory report " + name + " has no figures");
        }
    }
}
