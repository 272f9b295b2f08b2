package dev.vantage.profiler.trace;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Reads the events of a {@link Trace} one at a time without creating an object per event. Call {@link #next()}
 * before reading the first event; the accessors describe the current event. Host events come first (step
 * annotations, then each thread's events in recording order), then device work. Not thread-safe: one cursor per
 * reader.
 *
 * <p>Beyond the event's identity, name, kind, thread and time, every accessor has a default that describes an event
 * without that fact (no parent, no device, no inputs, no memory), so an implementation writes only what differs.
 */
@ProviderType
public interface EventCursor {

    /** Moves to the next event; returns false when there is none. */
    boolean next();

    /** Returns the current event's name. */
    String name();

    /** Returns what the current event is. */
    EventKind kind();

    /** Returns the Java thread id of the recording thread; for device work, of the launching thread or -1. */
    long threadId();

    /** Returns the start, in nanoseconds since the Unix epoch. */
    long startEpochNanos();

    /** Returns the duration in nanoseconds, never negative. */
    long durationNanos();

    /** Returns the event's id, unique within the trace. */
    long eventId();

    /**
     * Returns the id of the host event this one is nested in (by recording, not by comparing times): the
     * enclosing op, annotation or step; -1 for top-level events and device work. A memory event's parent is the op
     * that allocated.
     */
    default long parentId() {
        return -1;
    }

    /** Returns the duration less the durations of the host events nested directly inside; 0 for device work. */
    default long selfDurationNanos() {
        return kind().isDeviceWork() ? 0 : durationNanos();
    }

    /** Returns the device time of the work a host event launched itself; the duration for device work. */
    default long deviceSelfNanos() {
        return kind().isDeviceWork() ? durationNanos() : 0;
    }

    /** Returns the device time of the work a host event and the events nested in it launched. */
    default long deviceTotalNanos() {
        return deviceSelfNanos();
    }

    /**
     * Returns, for device work and runtime calls, the id of the host op that launched it, or -1 when none is
     * known; for host events, the event's own id. Kineto calls this {@code External id}.
     */
    default long correlationId() {
        return kind().isDeviceWork() || kind() == EventKind.RUNTIME ? -1 : eventId();
    }

    /**
     * Returns, for device work, the start of the host op that launched it (the event {@link #correlationId()}
     * names), in nanoseconds since the Unix epoch; -1 when it is not known and for other events. {@link StepRule}
     * attributes device work to steps by it.
     *
     * @since 1.5
     */
    default long launchEpochNanos() {
        return -1;
    }

    /**
     * Returns, for runtime calls and device work, the device runtime's correlation id that joins a launch to the
     * work it launched (Kineto's {@code correlation}, the id of the {@code ac2g} flow), or -1 when there is none
     * or its other end is not in the trace (a runtime call that launched nothing, work whose launch was not
     * recorded), so that every flow an exporter draws has both ends.
     */
    default long flowId() {
        return -1;
    }

    /**
     * Returns, for runtime calls and device work, the device's own facts about the event (such as
     * {@code Accelerator Core} and {@code Block Num} of an NPU kernel); empty for other events.
     */
    default Map<String, String> args() {
        return Map.of();
    }

    /**
     * Returns whether this is device work that moves data between ranks rather than computing. Views that split a
     * step into computation and communication (torch_npu's {@code step_trace_time.csv}, per-rank communication
     * time) use it. A trace the engine analysed answers from its table of communication kernel names (HCCL's, NCCL's,
     * RCCL's); this default knows only work carrying a {@code Collective name}, as torch copies a collective's
     * arguments onto its communication kernels.
     */
    default boolean isCommunication() {
        return kind().isDeviceWork() && args().containsKey("Collective name");
    }

    /**
     * Returns the index in {@link Trace#steps()} of the step the event belongs to by {@link StepRule}, or -1 when it
     * belongs to none, so that no view runs the rule again per event. The engine's traces say; this default, for a
     * trace that knows no steps, says none.
     *
     * @since 1.7
     */
    default int stepIndex() {
        return -1;
    }

    /**
     * Returns whether this event is a step's own span ({@code ProfilerStep#N}), the parent of the top-level host events
     * that began in it. The engine's traces know; this default recognises the span by its name.
     *
     * @since 1.7
     */
    default boolean isStep() {
        return kind() == EventKind.USER_ANNOTATION && StepRule.stepNumber(name()) >= 0;
    }

    /**
     * Returns the device type of device work or of a memory event's memory, such as {@code npu} or {@code cpu};
     * the empty string for other host events.
     */
    default String deviceType() {
        return "";
    }

    /** Returns the device index of device work or of a memory event's memory; -1 for host events and memory. */
    default int deviceIndex() {
        return -1;
    }

    /** Returns the stream or queue of device work; -1 for host events. */
    default long streamId() {
        return -1;
    }

    /** Returns the autograd sequence number, or -1. */
    default long sequenceNumber() {
        return -1;
    }

    /** Returns, for a backward op, the thread id of its forward op; otherwise -1. */
    default long forwardThreadId() {
        return -1;
    }

    /** Returns how many inputs were recorded for the event (0 unless shapes were recorded). */
    default int inputCount() {
        return 0;
    }

    /** Returns the shape of a recorded input; an empty array for a scalar or non-tensor input. */
    default long[] inputShape(int index) {
        throw new IndexOutOfBoundsException("no input " + index);
    }

    /** Returns the dtype name of a recorded input, {@code Scalar}, or the empty string. */
    default String inputType(int index) {
        throw new IndexOutOfBoundsException("no input " + index);
    }

    /** Returns the calling Java frames, innermost first; empty unless stacks were recorded. */
    default List<String> stack() {
        return List.of();
    }

    /** Returns floating-point operations by formula; 0 when not counted. */
    default long flops() {
        return 0;
    }

    /**
     * For memory events, returns the bytes allocated (negative for a free), or asked for by a failed allocation;
     * otherwise 0.
     */
    default long memoryBytes() {
        return 0;
    }

    /** For memory events, returns the block's address (0 for an out-of-memory event); otherwise 0. */
    default long memoryAddress() {
        return 0;
    }

    /** For memory events, returns the allocator's allocated bytes after the event; otherwise 0. */
    default long memoryTotalAllocated() {
        return 0;
    }

    /** For memory events, returns the allocator's reserved bytes after the event; otherwise 0. */
    default long memoryTotalReserved() {
        return 0;
    }

    /**
     * For memory events, returns the torch name of the {@code MemoryCategory} the allocating thread declared when
     * the event was recorded ({@code PARAMETER}, ..., {@code Unknown}; a free carries the allocating thread's
     * category at free time, which a memory timeline replaces by its block's); otherwise the empty string.
     *
     * @since 1.4
     */
    default String memoryCategory() {
        return "";
    }
}
