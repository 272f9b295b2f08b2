package dev.vantage.profiler.api;

import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.trace.EventKind;

/**
 * One recorded event, as returned by {@link ProfileResult#events()}: a host op or annotation, or device work.
 *
 * @param id the event's id, unique within the profile; device work has its own ids
 * @param name the op, annotation or kernel name
 * @param kind what the event is
 * @param threadId the Java thread id of the recording thread; for device work, the thread that launched it
 * @param startNanos start, on the host's {@link System#nanoTime()} clock
 * @param endNanos end, same clock; a host event still open at stop ends at the stop time
 * @param parentId the id of the enclosing host event on the same thread, or -1
 * @param childIds the ids of the host events directly nested inside, in order
 * @param step the step during which the event started (the number of {@code step()} calls before it)
 * @param deviceType the device type for device work, such as {@code npu}; the empty string for host events
 * @param deviceIndex the device index for device work; -1 for host events
 * @param streamId the stream or queue of device work; -1 for host events
 * @param correlationId for device work, the id of the host op that launched it; for host events, the event's id
 * @param sequenceNumber the autograd sequence number linking a forward op and its backward op, or -1
 * @param forwardThreadId for a backward op, the thread id of its forward op; otherwise -1
 * @param inputShapes one list of sizes per input, empty for a non-tensor input; empty unless shapes were recorded
 * @param inputTypes one dtype name per input ({@code float}, {@code Scalar}, or empty); empty unless recorded
 * @param stack frames of the calling Java code, innermost first; empty unless stacks were recorded
 * @param flops floating-point operations by formula; 0 when not counted
 * @param cpuMemoryBytes host memory the event allocated less what it freed itself (nested events excluded); 0
 *     unless memory was profiled
 * @param deviceMemoryBytes the same for device memory
 */
public record ProfilerEvent(long id, String name, EventKind kind, long threadId, long startNanos, long endNanos,
        long parentId, List<Long> childIds, long step, String deviceType, int deviceIndex, long streamId,
        long correlationId, long sequenceNumber, long forwardThreadId, List<List<Long>> inputShapes,
        List<String> inputTypes, List<String> stack, long flops, long cpuMemoryBytes, long deviceMemoryBytes) {

    /** Checks and copies the fields. */
    public ProfilerEvent {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(deviceType, "deviceType");
        childIds = List.copyOf(childIds);
        inputShapes = List.copyOf(inputShapes);
        inputTypes = List.copyOf(inputTypes);
        stack = List.copyOf(stack);
    }

    /** Returns the duration in nanoseconds. */
    public long durationNanos() {
        return endNanos - startNanos;
    }

    /** Returns true for kernels, copies and fills executed on a device. */
    public boolean isDeviceWork() {
        return deviceIndex >= 0;
    }
}
