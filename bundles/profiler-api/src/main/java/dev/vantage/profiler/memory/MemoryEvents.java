package dev.vantage.profiler.memory;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fast path from allocators to the profiler, as torch's {@code reportMemoryUsageToProfiler}. An allocator
 * calls {@link #allocated} after every allocation and free, on the allocating thread; when no profile records
 * memory, the call costs one field read and a branch. The profiler core is the single owner that publishes the
 * sink ({@link #claim}). The category of each allocation is the allocating thread's
 * {@link MemoryThread#category}, which a runtime sets with {@link MemoryScope}.
 */
public final class MemoryEvents {

    private static final AtomicReference<Object> OWNER = new AtomicReference<>();
    private static volatile MemorySink sink;

    private MemoryEvents() {
    }

    /** Returns true while a profile records memory; an allocator may skip preparing a report when false. */
    public static boolean enabled() {
        return sink != null;
    }

    /**
     * Reports an allocation ({@code bytes > 0}) or a free ({@code bytes < 0}).
     *
     * @param deviceType the device type, such as {@code cpu} or {@code npu}
     * @param deviceIndex the device index; -1 for host memory
     * @param address the block's address (or any id unique among live blocks)
     * @param bytes the size, negative for a free
     * @param totalAllocated the bytes the allocator has handed out after this event
     * @param totalReserved the bytes the allocator holds from the system after this event
     */
    public static void allocated(String deviceType, int deviceIndex, long address, long bytes, long totalAllocated,
            long totalReserved) {
        MemorySink s = sink;
        if (s != null) {
            s.allocated(deviceType, deviceIndex, address, bytes, totalAllocated, totalReserved);
        }
    }

    /**
     * Re-categorises a live block: from now on, and for the whole of its life in a memory timeline, the block
     * allocated at {@code address} holds {@code category}. A runtime calls this when it learns what a block holds
     * only after allocating it (a backward op's output that becomes a parameter's gradient); the address is the
     * one its allocator reported. Does nothing when no profile records memory.
     *
     * @param deviceType the device type, as the allocator reported it
     * @param deviceIndex the device index; -1 for host memory
     * @throws NullPointerException if category is null
     */
    public static void categorize(String deviceType, int deviceIndex, long address, MemoryCategory category) {
        Objects.requireNonNull(category, "category");
        MemorySink s = sink;
        if (s != null) {
            s.categorized(deviceType, deviceIndex, address, category);
        }
    }

    /**
     * Reports that the block at {@code address} is being freed by the garbage collector, not by its owner: a
     * runtime's safety net for memory nobody released (a tensor never closed). The allocator's free of the block
     * follows on the same thread. Does nothing when no profile records memory.
     *
     * @param deviceType the device type, as the allocator reported it
     * @param deviceIndex the device index; -1 for host memory
     * @param address the block's address, as the allocator reported it
     * @param allocatedBy what allocated the block, such as the op ({@code aten::mm}); empty when not known
     * @throws NullPointerException if allocatedBy is null
     */
    public static void collected(String deviceType, int deviceIndex, long address, String allocatedBy) {
        Objects.requireNonNull(allocatedBy, "allocatedBy");
        MemorySink s = sink;
        if (s != null) {
            s.collected(deviceType, deviceIndex, address, allocatedBy);
        }
    }

    /**
     * Reports an allocation that failed for lack of memory.
     *
     * @param bytes the size that was asked for
     */
    public static void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated,
            long totalReserved) {
        MemorySink s = sink;
        if (s != null) {
            s.outOfMemory(deviceType, deviceIndex, bytes, totalAllocated, totalReserved);
        }
    }

    /**
     * Makes the caller the owner of the sink. Called by the profiler core when it activates.
     *
     * @return the token {@link #publish} and {@link #release} require
     * @throws IllegalStateException if another owner holds it
     */
    public static Object claim() {
        Object token = new Object();
        if (!OWNER.compareAndSet(null, token)) {
            throw new IllegalStateException("memory events are owned by another profiler core");
        }
        return token;
    }

    /**
     * Sets the sink, or null for none.
     *
     * @throws IllegalStateException if the token is not the owner's
     */
    public static void publish(Object token, MemorySink newSink) {
        check(token);
        sink = newSink;
    }

    /**
     * Removes the sink and gives up ownership.
     *
     * @throws IllegalStateException if the token is not the owner's
     */
    public static void release(Object token) {
        check(token);
        sink = null;
        OWNER.set(null);
    }

    private static void check(Object token) {
        if (token == null || OWNER.get() != Objects.requireNonNull(token, "token")) {
            throw new IllegalStateException("not the owner of memory events");
        }
    }
}
