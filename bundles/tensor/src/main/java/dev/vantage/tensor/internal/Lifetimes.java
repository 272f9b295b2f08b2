package dev.vantage.tensor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ObjIntConsumer;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/**
 * The garbage collector as a safety net for memory nobody released. A storage whose allocator gave a free action is
 * registered here: its memory goes back exactly once, either when the last tensor using it is closed (the normal
 * case: a scope closed it, or its owner did), or, for a storage that became unreachable with users left, when the
 * collector finds it. Such a late free is counted ({@link #lateFrees()}) and reported to a memory profile
 * ({@link MemoryEvents#collected}) with the op that allocated it, on the collector thread, before the free itself.
 *
 * <p>Design: each registration is a phantom reference to its storage on a queue of this class's own, kept reachable
 * in a doubly linked list until it has run (as {@link java.lang.ref.Cleaner} keeps its cleanables). There are
 * {@value #LISTS} lists, each guarded by its sentinel's monitor, and a registration joins the list of the thread that
 * allocates (by thread id), so threads that allocate and free their own tensors take no monitor another thread takes:
 * one global list would make every allocation and every free of every thread queue on one lock. One daemon
 * thread, {@code vantage-lifetimes}, takes what the collector enqueues and frees it. A queue of our own, rather than
 * a {@code Cleaner}, lets a test put a storage on it as the collector would ({@link #collectAsUnreachable}) instead of
 * waiting for the collector. Whichever comes first, the explicit release or the collector, wins a compare-and-set and
 * frees; the other does nothing. The op that allocated a storage is told by the runtime right after the allocation
 * ({@link #allocatedBy}), while a profile records memory: registering looks nothing up.
 */
public final class Lifetimes {

    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    /** How many lists registrations are kept in: a power of two, a few per core of a large machine. */
    static final int LISTS = 64;
    /** The sentinels of the lists of registrations that have not run; each one's monitor guards its list's links. */
    private static final Lifetime[] LIVE = new Lifetime[LISTS];
    private static final AtomicLong LATE_FREES = new AtomicLong();
    private static final AtomicLong LATE_BYTES = new AtomicLong();
    /** How the runtime names a storage's allocating op, which the storage keeps private; bound by {@link Storage}. */
    private static volatile ObjIntConsumer<Storage> origins;

    static {
        for (int i = 0; i < LISTS; i++) {
            LIVE[i] = new Lifetime();
        }
        Thread collector = new Thread(Lifetimes::collect, "vantage-lifetimes");
        collector.setDaemon(true);
        collector.start();
    }

    private Lifetimes() {
    }

    /** One storage's free action, run once, explicitly or by the collector. */
    public static final class Lifetime extends PhantomReference<Object> {
        private static final VarHandle DONE;
        private static final VarHandle ORIGIN;

        static {
            try {
                DONE = MethodHandles.lookup().findVarHandle(Lifetime.class, "done", boolean.class);
                ORIGIN = MethodHandles.lookup().findVarHandle(Lifetime.class, "origin", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Runnable free;
        private final Device device;
        private final long address;
        private final long bytes;
        /** The name id of the op that allocated the storage, or -1; written once, released, read by the collector. */
        @SuppressWarnings("unused")   // through ORIGIN
        private int origin = -1;
        private volatile boolean done;
        /** The sentinel of the list this registration is in; itself for a sentinel. */
        private final Lifetime list;
        private Lifetime prev;
        private Lifetime next;

        /** A list's sentinel. */
        private Lifetime() {
            super(null, null);
            this.free = null;
            this.device = null;
            this.address = 0;
            this.bytes = 0;
            this.list = this;
            prev = this;
            next = this;
        }

        private Lifetime(Object storage, Runnable free, Device device, long address, long bytes, Lifetime list) {
            super(storage, QUEUE);
            this.free = free;
            this.device = device;
            this.address = address;
            this.bytes = bytes;
            this.list = list;
        }

        /**
         * Names the op that allocated the storage, for the report of a late free; released, so that the collector
         * thread, which reads it after the collector found the storage, sees it.
         *
         * @param op the op's name id in {@code OpNames}, or -1 for none
         */
        public void allocatedBy(int op) {
            ORIGIN.setRelease(this, op);
        }

        /** Frees the memory now, as its last user released it; does nothing the second time. */
        public void release() {
            if (claim()) {
                free.run();
            }
        }

        /** Runs on the collector thread once the storage was found unreachable without a release. */
        private void collected() {
            if (claim()) {
                LATE_FREES.incrementAndGet();
                LATE_BYTES.addAndGet(bytes);
                int op = (int) ORIGIN.getAcquire(this);
                MemoryEvents.collected(device.type(), MemoryTags.profileIndex(device), address,
                        op < 0 ? "" : OpNames.name(op));
                free.run();
            }
        }

        /** Takes the right to free; true once, for whoever asks first. */
        private boolean claim() {
            if (!DONE.compareAndSet(this, false, true)) {
                return false;
            }
            clear();
            synchronized (list) {
                prev.next = next;
                next.prev = prev;
                prev = this;
                next = this;
            }
            return true;
        }
    }

    /**
     * Registers a storage's free action.
     *
     * @param storage the storage whose unreachability runs the action, if nothing released it before
     * @param free gives the memory back to its allocator
     * @param address the block's address, as its allocator reported it
     * @param bytes the storage's size, for the count of late frees
     */
    public static Lifetime register(Object storage, Runnable free, Device device, long address, long bytes) {
        Lifetime list = LIVE[(int) Thread.currentThread().getId() & (LISTS - 1)];
        Lifetime l = new Lifetime(storage, free, device, address, bytes, list);
        synchronized (list) {
            l.next = list.next;
            l.prev = list;
            list.next.prev = l;
            list.next = l;
        }
        return l;
    }

    /**
     * Binds how a storage is told the op that allocated it; {@link Storage} calls it once, when it is initialised.
     *
     * @throws IllegalStateException if bound already
     */
    public static synchronized void bind(ObjIntConsumer<Storage> allocatedBy) {
        if (origins != null) {
            throw new IllegalStateException("storages' origins are bound already");
        }
        origins = Objects.requireNonNull(allocatedBy, "allocatedBy");
    }

    /**
     * Names the op that allocated a storage, for the report of a late free; does nothing for a storage no allocator
     * gave a free action.
     *
     * @param op the op's name id in {@code OpNames}, or -1 for none
     */
    public static void allocatedBy(Storage storage, int op) {
        origins.accept(storage, op);
    }

    /**
     * Puts a storage's registration on the queue, as the garbage collector does when it finds the storage
     * unreachable, so that the collector thread frees it as a late free; for tests, which cannot make the collector
     * run. Does nothing to a storage that was released or collected already.
     *
     * @return true if the storage had a registration that had not run
     */
    public static boolean collectAsUnreachable(Object storage) {
        for (Lifetime list : LIVE) {
            Lifetime found = null;
            synchronized (list) {
                for (Lifetime l = list.next; l != list; l = l.next) {
                    if (l.refersTo(storage)) {
                        found = l;
                        break;
                    }
                }
            }
            if (found != null) {
                return found.enqueue();
            }
        }
        return false;
    }

    /** Returns how many storages the garbage collector freed because no one released them, since the start. */
    public static long lateFrees() {
        return LATE_FREES.get();
    }

    /** Returns the bytes of those storages. */
    public static long lateFreeBytes() {
        return LATE_BYTES.get();
    }

    private static void collect() {
        while (true) {
            try {
                ((Lifetime) QUEUE.remove()).collected();
            } catch (InterruptedException e) {
                // nothing stops this thread: it frees for as long as the runtime allocates
            } catch (RuntimeException | Error e) {
                // as a Cleaner does: an allocator's free that throws must not end the thread for every other storage
            }
        }
    }
}
