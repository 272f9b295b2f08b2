package dev.vantage.profiler.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
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
public abstract sealed class DispatchThread permits DispatchThread.Lookup.State {

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
        return Lookup.current();
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

    /**
     * How a thread finds its {@link DispatchThread}, in fewer dependent loads than a {@code ThreadLocal}'s: a
     * recorded op waits for every load before it reads the clock, so each one counts (docs/benchmarks.md, items 9
     * to 11).
     * <ul>
     *   <li>The <em>primary</em> thread, the one that dispatches most (a training loop's), finds its state in a
     *       static field checked against the current thread: one load. Another thread takes that field over after
     *       {@value #TAKE_OVER} lookups of its own through the table, so with several busy threads the field is
     *       written once per {@value #TAKE_OVER} lookups at most, never per op.</li>
     *   <li>Every other thread uses a table indexed by the thread's id, which holds a weak reference to each state
     *       with the id: four dependent loads instead of the seven of {@code ThreadLocal.get()}.</li>
     *   <li>A thread whose table entry another live thread holds (the ids collide modulo the table's size) falls
     *       back to the {@code ThreadLocal}, which also keeps every state alive for as long as its thread: the
     *       table's references are weak, so a finished thread's state goes with it. The primary field holds its
     *       state strongly: a finished primary thread's state stays until another thread takes the field over.</li>
     * </ul>
     * Concurrency: the primary field and the table's entries are read and written with opaque access
     * ({@link #primaryOpaque()}, {@link #setPrimaryOpaque}): a thread may see another's write late, which only sends
     * it to the table or the {@code ThreadLocal} once more, and a state it reads is always whole, since every field
     * the check reads ({@code thread}, {@code id}) is final. The per-thread counter of table lookups is written by
     * its own thread only. Package-private, so that no caller can depend on it: {@link #current()} is the way in.
     */
    static final class Lookup {

        private static final ThreadLocal<State> CURRENT = ThreadLocal.withInitial(State::new);
        /**
         * Thread states by thread id modulo the length; a power of two. Written when a thread finds its entry free: at
         * its first lookup, or after the state that held the entry was collected.
         */
        private static final Entry[] BY_ID = new Entry[1024];
        private static final VarHandle ENTRIES = MethodHandles.arrayElementVarHandle(Entry[].class);
        private static final VarHandle PRIMARY;
        /** Table lookups after which a thread becomes the primary thread. */
        static final int TAKE_OVER = 4096;
        /** The primary thread's state: written only when another thread takes over; see {@link #primaryOpaque()}. */
        @SuppressWarnings("unused")   // through PRIMARY
        private static State primary;

        static {
            try {
                PRIMARY = MethodHandles.lookup().findStaticVarHandle(Lookup.class, "primary", State.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private Lookup() {
        }

        /** One thread's state, with what the lookup keeps about it; the only kind of {@link DispatchThread}. */
        static final class State extends DispatchThread {
            final long id;
            /** This state's entry in the table, made once. */
            final Entry self;
            /** This thread's lookups through the table since it last became the primary one, or since it started. */
            int lookups;

            State() {
                this.id = thread().getId();
                this.self = new Entry(this);
            }
        }

        /** A table entry: the state, weakly, with its thread's id, so that the check needs no second load. */
        static final class Entry extends WeakReference<State> {
            final long id;

            Entry(State state) {
                super(state);
                this.id = state.id;
            }
        }

        /** The primary thread's state, or null; opaque: never hoisted out of a loop, never torn. */
        static State primaryOpaque() {
            return (State) PRIMARY.getOpaque();
        }

        private static void setPrimaryOpaque(State state) {
            PRIMARY.setOpaque(state);
        }

        /** Returns the calling thread's state, creating it on the thread's first call. */
        static DispatchThread current() {
            Thread t = Thread.currentThread();
            State p = primaryOpaque();
            if (p != null && p.thread() == t) {
                return p;
            }
            return lookup(t);
        }

        /**
         * Every thread but the primary one: the table by id, then the {@code ThreadLocal}. A thread that comes here
         * {@value #TAKE_OVER} times becomes the primary thread, and its count starts again.
         */
        private static State lookup(Thread t) {
            long id = t.getId();
            Entry e = (Entry) ENTRIES.getOpaque(BY_ID, (int) id & (BY_ID.length - 1));
            State state = e != null && e.id == id ? e.get() : null;
            if (state == null) {
                state = register(id);
            }
            if (++state.lookups >= TAKE_OVER) {
                // the one write every thread may see, once per TAKE_OVER lookups of a thread that is not the primary
                state.lookups = 0;
                setPrimaryOpaque(state);
            }
            return state;
        }

        /**
         * The first lookup on a thread, or one whose table entry another thread's state holds: the state from the
         * {@code ThreadLocal}, entered in the table when the entry is free (a finished thread's state is cleared from
         * it once collected). Thread ids are never reused, so an entry with this thread's id is this thread's.
         */
        private static State register(long id) {
            State state = CURRENT.get();
            int i = (int) id & (BY_ID.length - 1);
            Entry e = (Entry) ENTRIES.getOpaque(BY_ID, i);
            if (e == null || e.get() == null) {
                // a thread that reads a stale entry finds another id and comes here
                ENTRIES.setOpaque(BY_ID, i, state.self);
            }
            return state;
        }

        /** For tests: whether the table holds a live state for a thread id. */
        static boolean tableHolds(long id) {
            Entry e = (Entry) ENTRIES.getOpaque(BY_ID, (int) id & (BY_ID.length - 1));
            return e != null && e.id == id && e.get() != null;
        }
    }
}
