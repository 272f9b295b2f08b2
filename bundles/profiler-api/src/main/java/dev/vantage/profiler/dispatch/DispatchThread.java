package dev.vantage.profiler.dispatch;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one dispatching thread carries for the runtime and for the hooks, found with a single thread-local lookup
 * per op. A runtime looks its thread up once when an op begins ({@link #current()}), keeps its own per-thread
 * state in a slot, and hands the thread to hooks through {@link OpCall#thread()}; a hook keeps its per-thread state
 * (a recorder's buffer) in a slot of its own instead of a {@code ThreadLocal}, so recording an op costs no lookup
 * beyond the runtime's.
 *
 * <p>Slots are reserved once per owner with {@link #newSlot()} (in a static initialiser, say) and are never
 * reused. A slot holds one object per thread; an owner that replaces its state (a new recording window) overwrites
 * the slot, so a thread never keeps more than one object per slot alive.
 *
 * <p>Concurrency: only the thread an instance belongs to may call {@link #get} and {@link #set}; there is no
 * synchronisation.
 */
public final class DispatchThread {

    private static final AtomicInteger SLOTS = new AtomicInteger();
    private static final ThreadLocal<DispatchThread> CURRENT = ThreadLocal.withInitial(DispatchThread::new);

    /** Returned by {@link #takeAllocatedAddress()} when no allocation was recorded since the last call. */
    public static final long NO_ADDRESS = Long.MIN_VALUE;

    private final Thread thread;
    private Object[] values = new Object[4];
    private MemoryCategory memoryCategory = MemoryCategory.UNKNOWN;
    private long allocatedAddress = NO_ADDRESS;

    private DispatchThread() {
        this.thread = Thread.currentThread();
    }

    /** Returns the calling thread's state, creating it on the thread's first call. */
    public static DispatchThread current() {
        return CURRENT.get();
    }

    /**
     * Reserves a slot in every thread's state. Call once per owner and keep the number: every call reserves
     * another slot.
     *
     * @return the slot, 0 or greater
     */
    public static int newSlot() {
        return SLOTS.getAndIncrement();
    }

    /** Returns the thread this state belongs to. */
    public Thread thread() {
        return thread;
    }

    /**
     * Returns what a slot holds on this thread.
     *
     * @param slot a number {@link #newSlot()} returned
     * @return the value last {@link #set}, or null when none was set on this thread
     */
    public Object get(int slot) {
        Object[] v = values;
        return slot < v.length ? v[slot] : null;
    }

    /**
     * Sets what a slot holds on this thread; only the thread itself may call this.
     *
     * @param slot a number {@link #newSlot()} returned
     * @param value the new value; null clears the slot
     * @throws IllegalArgumentException if the slot was never reserved
     */
    public void set(int slot, Object value) {
        if (slot < 0 || slot >= SLOTS.get()) {
            throw new IllegalArgumentException("slot " + slot + " was never reserved");
        }
        if (slot >= values.length) {
            values = Arrays.copyOf(values, Math.max(slot + 1, values.length * 2));
        }
        values[slot] = value;
    }

    /**
     * Returns the category of what this thread allocates now, as {@link MemoryScope} set it; a memory sink reads it
     * when it records an allocation. Never null.
     */
    public MemoryCategory memoryCategory() {
        return memoryCategory;
    }

    /**
     * Sets the category of what this thread allocates; only the thread itself may call this. A runtime uses
     * {@link MemoryScope}, or this method where a scope object would cost an allocation per op.
     *
     * @throws NullPointerException if category is null
     */
    public void setMemoryCategory(MemoryCategory category) {
        memoryCategory = Objects.requireNonNull(category, "category");
    }

    /**
     * Notes the address of an allocation a memory sink recorded on this thread, so that the runtime that asked for
     * the memory can learn it ({@link #takeAllocatedAddress()}) and later re-categorise the block
     * ({@link MemoryEvents#categorize}).
     */
    public void allocatedAddress(long address) {
        allocatedAddress = address;
    }

    /**
     * Returns the address of the last allocation recorded on this thread since the previous call, and forgets it.
     *
     * @return the address, or {@link #NO_ADDRESS} when none was recorded since the previous call
     */
    public long takeAllocatedAddress() {
        long a = allocatedAddress;
        allocatedAddress = NO_ADDRESS;
        return a;
    }
}
