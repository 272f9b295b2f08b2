package dev.vantage.profiler.memory;

import java.util.Objects;

import dev.vantage.profiler.dispatch.DispatchThread;

/**
 * The memory state one dispatching thread carries, in a slot of its {@link DispatchThread}: the category of what it
 * allocates now ({@link MemoryScope} sets it), and the address of the last allocation a memory sink recorded on it,
 * so that the runtime that asked for the memory can learn it and later re-categorise the block
 * ({@link MemoryEvents#categorize}). Only the thread a state belongs to may call these methods.
 */
public final class MemoryThread {

    /** Returned by {@link #takeAddress} when no allocation was recorded since the last call. */
    public static final long NO_ADDRESS = Long.MIN_VALUE;

    private static final int SLOT = DispatchThread.newSlot();

    private MemoryCategory category = MemoryCategory.UNKNOWN;
    private long address = NO_ADDRESS;

    private MemoryThread() {
    }

    private static MemoryThread of(DispatchThread thread) {
        MemoryThread m = (MemoryThread) thread.get(SLOT);
        if (m == null) {
            m = new MemoryThread();
            thread.set(SLOT, m);
        }
        return m;
    }

    /** Returns the category of what a thread allocates now; never null ({@code UNKNOWN} unless a scope set it). */
    public static MemoryCategory category(DispatchThread thread) {
        MemoryThread m = (MemoryThread) thread.get(SLOT);
        return m == null ? MemoryCategory.UNKNOWN : m.category;
    }

    /**
     * Sets the category of what a thread allocates. A runtime uses {@link MemoryScope}, or this method where a
     * scope object would cost an allocation per op.
     *
     * @throws NullPointerException if category is null
     */
    public static void setCategory(DispatchThread thread, MemoryCategory category) {
        of(thread).category = Objects.requireNonNull(category, "category");
    }

    /**
     * Notes the address of an allocation a memory sink recorded on a thread.
     *
     * @deprecated a runtime knows the address from its allocator (the tensor runtime's storage carries it); the
     *     core no longer notes it, and this will go in the next major version
     */
    @Deprecated
    public static void noteAddress(DispatchThread thread, long address) {
        of(thread).address = address;
    }

    /**
     * Returns the address of the last allocation recorded on a thread since the previous call, and forgets it.
     *
     * @deprecated see {@link #noteAddress}
     *
     * @return the address, or {@link #NO_ADDRESS} when none was recorded since the previous call
     */
    @Deprecated
    public static long takeAddress(DispatchThread thread) {
        MemoryThread m = (MemoryThread) thread.get(SLOT);
        if (m == null) {
            return NO_ADDRESS;
        }
        long a = m.address;
        m.address = NO_ADDRESS;
        return a;
    }
}
