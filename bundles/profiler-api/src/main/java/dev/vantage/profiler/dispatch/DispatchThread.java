package dev.vantage.profiler.dispatch;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one dispatching thread carries for the runtime and for the hooks: numbered slots, found with a single lookup
 * per op. A runtime looks its thread up once when an op begins ({@link #current()}), keeps its own per-thread state
 * in a slot, and hands the thread to hooks through {@link OpCall#thread()}; a hook keeps its per-thread state (a
 * recorder's buffer) in a slot of its own instead of a {@code ThreadLocal}, so recording an op costs no lookup
 * beyond the runtime's. How a thread finds its state is internal to this bundle and shorter than a
 * {@code ThreadLocal}'s (docs/architecture.md, "The dispatch fast path").
 *
 * <p>Slots are reserved once per owner with {@link #newSlot()} (in a static initialiser, say) and are never
 * reused. A slot holds one object per thread; an owner that replaces its state (a new recording window) overwrites
 * the slot, so a thread never keeps more than one object per slot alive. The first four slots are fields, read with
 * one load when the slot number is a constant.
 *
 * <p>Concurrency: only the thread an instance belongs to may call {@link #get} and {@link #set}; there is no
 * synchronisation. Instances are made by this package only: the class is sealed, its one subclass is the lookup's
 * own state, so no caller can make one or depend on how a thread finds its state.
 */
public abstract sealed class DispatchThread permits ThreadStates.State {

    private static final AtomicInteger SLOTS = new AtomicInteger();
    private static final int FIELD_SLOTS = 4;

    private final Thread thread;
    private Object slot0;
    private Object slot1;
    private Object slot2;
    private Object slot3;
    /** Slots from {@link #FIELD_SLOTS} on. */
    private Object[] values = new Object[0];

    /** The state of the calling thread; only this package's lookup makes one (the class is sealed). */
    protected DispatchThread() {
        this.thread = Thread.currentThread();
    }

    /** Returns the calling thread's state, creating it on the thread's first call. */
    public static DispatchThread current() {
        return ThreadStates.current();
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
    public final Thread thread() {
        return thread;
    }

    /**
     * Returns what a slot holds on this thread.
     *
     * @param slot a number {@link #newSlot()} returned
     * @return the value last {@link #set}, or null when none was set on this thread
     */
    public final Object get(int slot) {
        switch (slot) {
            case 0:
                return slot0;
            case 1:
                return slot1;
            case 2:
                return slot2;
            case 3:
                return slot3;
            default:
                Object[] v = values;
                int at = slot - FIELD_SLOTS;
                return at >= 0 && at < v.length ? v[at] : null;
        }
    }

    /**
     * Sets what a slot holds on this thread; only the thread itself may call this.
     *
     * @param slot a number {@link #newSlot()} returned
     * @param value the new value; null clears the slot
     * @throws IllegalArgumentException if the slot was never reserved
     */
    public final void set(int slot, Object value) {
        if (slot < 0 || slot >= SLOTS.get()) {
            throw new IllegalArgumentException("slot " + slot + " was never reserved");
        }
        switch (slot) {
            case 0 -> slot0 = value;
            case 1 -> slot1 = value;
            case 2 -> slot2 = value;
            case 3 -> slot3 = value;
            default -> {
                int at = slot - FIELD_SLOTS;
                if (at >= values.length) {
                    values = Arrays.copyOf(values, Math.max(at + 1, values.length * 2));
                }
                values[at] = value;
            }
        }
    }
}
