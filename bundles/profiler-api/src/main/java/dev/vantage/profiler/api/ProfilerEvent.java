package dev.vantage.profiler.api;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.profiler.trace.EventKind;

/**
 * One recorded event, as returned by {@link ProfileResult#events()}: a host op or annotation, or device work.
 *
 * <p>An interface, so that a later release can add what an event carries without breaking code that reads it;
 * the profiler implements it.
 */
@ProviderType
public interface ProfilerEvent {

    /** Returns the event's id, unique within the profile; device work has its own ids. */
    long id();

    /** Returns the op, annotation or kernel name. */
    String name();

    /** Returns what the event is. */
    EventKind kind();

    /** Returns the Java thread id of the recording thread; for device work, the thread that launched it. */
    long threadId();

    /** Returns the start, on the host's {@link System#nanoTime()} clock. */
    long startNanos();

    /** Returns the end, on the same clock; a host event still open at stop ends at the stop time. */
    long endNanos();

    /** Returns the id of the enclosing host event on the same thread, or -1. */
    long parentId();

    /** Returns the ids of the host events directly nested inside, in order. */
    List<Long> childIds();

    /** Returns the step during which the event started (the number of {@code step()} calls before it). */
    long step();

    /** Returns the device type for device work, such as {@code npu}; the empty string for host events. */
    String deviceType();

    /** Returns the device index for device work; -1 for host events. */
    int deviceIndex();

    /** Returns the stream or queue of device work; -1 for host events. */
    long streamId();

    /** Returns, for device work, the id of the host op that launched it; for host events, the event's id. */
    long correlationId();

    /** Returns the autograd sequence number linking a forward op and its backward op, or -1. */
    long sequenceNumber();

    /** Returns, for a backward op, the thread id of its forward op; otherwise -1. */
    long forwardThreadId();

    /** Returns one list of sizes per input, empty for a non-tensor input; empty unless shapes were recorded. */
    List<List<Long>> inputShapes();

    /** Returns one dtype name per input ({@code float}, {@code Scalar}, or empty); empty unless recorded. */
    List<String> inputTypes();

    /** Returns the frames of the calling Java code, innermost first; empty unless stacks were recorded. */
    List<String> stack();

    /** Returns the floating-point operations by formula; 0 when not counted. */
    long flops();

    /**
     * Returns the host memory the event allocated less what it freed itself (nested events excluded); 0 unless
     * memory was profiled.
     */
    long cpuMemoryBytes();

    /** Returns the same as {@link #cpuMemoryBytes()} for device memory. */
    long deviceMemoryBytes();

    /** Returns the duration in nanoseconds. */
    default long durationNanos() {
        return endNanos() - startNanos();
    }

    /** Returns true for kernels, copies and fills executed on a device. */
    default boolean isDeviceWork() {
        return deviceIndex() >= 0;
    }
}
