package dev.vantage.profiler.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * How a thread finds its {@link DispatchThread}, in fewer dependent loads than a {@code ThreadLocal}'s: a recorded op
 * waits for every load before it reads the clock, so each one counts (docs/benchmarks.md, items 9 to 11).
 * <ul>
 *   <li>The <em>primary</em> thread, the one that dispatches most (a training loop's), finds its state in a static
 *       field checked against the current thread: one load. Another thread takes that field over after
 *       {@value #TAKE_OVER} lookups of its own through the table, so with several busy threads the field is written
 *       once per {@value #TAKE_OVER} lookups at most, never per op.</li>
 *   <li>Every other thread uses a table indexed by the thread's id, which holds a weak reference to each state with
 *       the id: four dependent loads instead of the seven of {@code ThreadLocal.get()}.</li>
 *   <li>A thread whose table entry another live thread holds (the ids collide modulo the table's size) falls back to
 *       the {@code ThreadLocal}, which also keeps every state alive for as long as its thread: the table's
 *       references are weak, so a finished thread's state goes with it. The primary field holds its state strongly:
 *       a finished primary thread's state stays until another thread takes the field over.</li>
 * </ul>
 * Concurrency: the primary field and the table's entries are read and written with opaque access
 * ({@link #primaryOpaque()}, {@link #setPrimaryOpaque}): a thread may see another's write late, which only sends it
 * to the table or the {@code ThreadLocal} once more, and a state it reads is always whole, since every field the
 * check reads ({@code thread}, {@code id}) is final. The per-thread counter of table lookups is written by its own
 * thread only. Package-private, so that no caller can depend on it; {@link DispatchThread#current()} is the way in.
 */
final class ThreadStates {

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
            PRIMARY = MethodHandles.lookup().findStaticVarHandle(ThreadStates.class, "primary", State.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ThreadStates() {
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
