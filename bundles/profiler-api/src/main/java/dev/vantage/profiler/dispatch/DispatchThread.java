package dev.vantage.profiler.dispatch;

import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one dispatching thread carries for the runtime and for the hooks, found with a single lookup per op. A
 * runtime looks its thread up once when an op begins ({@link #current()}), keeps its own per-thread state in a slot,
 * and hands the thread to hooks through {@link OpCall#thread()}; a hook keeps its per-thread state (a recorder's
 * buffer) in a slot of its own instead of a {@code ThreadLocal}, so recording an op costs no lookup beyond the
 * runtime's.
 *
 * <p>The lookup is shorter than a {@code ThreadLocal}'s, because a recorded op waits for every load before it reads
 * the clock, so each dependent load counts:
 * <ul>
 *   <li>The <em>primary</em> thread, the one that dispatches most (a training loop's), finds its state in a static
 *       field checked against the current thread: one load. Another thread takes that field over after
 *       {@value #TAKE_OVER} lookups of its own through the table, so with several busy threads the field is written
 *       once per {@value #TAKE_OVER} lookups at most, never per op.</li>
 *   <li>Every other thread uses a table indexed by the thread's id, which holds a weak reference to each state with
 *       the id: four dependent loads instead of the seven of {@code ThreadLocal.get()} (the thread's map, its table,
 *       the entry, the value).</li>
 *   <li>A thread whose table entry another live thread holds (the ids collide modulo the table's size) falls back to
 *       the {@code ThreadLocal}, which also keeps every state alive for as long as its thread: the table's
 *       references are weak, so a finished thread's state goes with it. The primary field holds its state strongly:
 *       a finished primary thread's state stays until another thread takes the field over.</li>
 * </ul>
 *
 * <p>Slots are reserved once per owner with {@link #newSlot()} (in a static initialiser, say) and are never
 * reused. A slot holds one object per thread; an owner that replaces its state (a new recording window) overwrites
 * the slot, so a thread never keeps more than one object per slot alive. The first {@value #FIELD_SLOTS} slots are
 * fields, read with one load when the slot number is a constant.
 *
 * <p>Concurrency: only the thread an instance belongs to may call {@link #get} and {@link #set}; there is no
 * synchronisation.
 */
public final class DispatchThread {

    private static final AtomicInteger SLOTS = new AtomicInteger();
    private static final ThreadLocal<DispatchThread> CURRENT = ThreadLocal.withInitial(DispatchThread::new);
    /**
     * Thread states by thread id modulo the length; a power of two. Written when a thread finds its entry free: at
     * its first lookup, or after the state that held the entry was collected.
     */
    private static final Entry[] BY_ID = new Entry[1024];
    private static final int FIELD_SLOTS = 4;
    /** Table lookups after which a thread becomes the primary thread. */
    private static final int TAKE_OVER = 4096;
    /**
     * The primary thread's state: the thread that dispatches most, found with one load and no table. Written only
     * when another thread takes over; a plain field, since a stale read only sends a thread to the table.
     */
    private static DispatchThread primary;

    /** Returned by {@link #takeAllocatedAddress()} when no allocation was recorded since the last call. */
    public static final long NO_ADDRESS = Long.MIN_VALUE;

    private final Thread thread;
    private final long id;
    /** This state's entry in the table, made once. */
    private final Entry self;
    /** This thread's lookups through the table since it last became the primary one, or since it started. */
    private int lookups;
    private Object slot0;
    private Object slot1;
    private Object slot2;
    private Object slot3;
    /** Slots from {@link #FIELD_SLOTS} on. */
    private Object[] values = new Object[0];
    private MemoryCategory memoryCategory = MemoryCategory.UNKNOWN;
    private long allocatedAddress = NO_ADDRESS;

    /** A table entry: the state, weakly, with its thread's id, so that the check needs no second load. */
    private static final class Entry extends WeakReference<DispatchThread> {
        final long id;

        Entry(DispatchThread state) {
            super(state);
            this.id = state.id;
        }
    }

    private DispatchThread() {
        this.thread = Thread.currentThread();
        this.id = thread.getId();
        this.self = new Entry(this);
    }

    /** Returns the calling thread's state, creating it on the thread's first call. */
    public static DispatchThread current() {
        Thread t = Thread.currentThread();
        DispatchThread p = primary;
        if (p != null && p.thread == t) {
            return p;
        }
        return lookup(t);
    }

    /**
     * Every thread but the primary one: the table by id, then the {@code ThreadLocal}. A thread that comes here
     * {@value #TAKE_OVER} times becomes the primary thread, and its count starts again.
     */
    private static DispatchThread lookup(Thread t) {
        long id = t.getId();
        Entry e = BY_ID[(int) id & (BY_ID.length - 1)];
        DispatchThread state = e != null && e.id == id ? e.get() : null;
        if (state == null) {
            state = register(id);
        }
        if (++state.lookups >= TAKE_OVER) {
            // the one write every thread may see, once per TAKE_OVER lookups of a thread that is not the primary
            state.lookups = 0;
            primary = state;
        }
        return state;
    }

    /**
     * The first lookup on a thread, or one whose table entry another thread's state holds: the state from the
     * {@code ThreadLocal}, entered in the table when the entry is free (a finished thread's state is cleared from
     * it once collected). Thread ids are never reused, so an entry with this thread's id is this thread's.
     */
    private static DispatchThread register(long id) {
        DispatchThread state = CURRENT.get();
        int i = (int) id & (BY_ID.length - 1);
        Entry e = BY_ID[i];
        if (e == null || e.get() == null) {
            // a plain store: a thread that reads a stale entry finds another id and comes here
            BY_ID[i] = state.self;
        }
        return state;
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
    public void set(int slot, Object value) {
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
