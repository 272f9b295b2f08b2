package dev.vantage.tensor.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;

/**
 * The garbage collector as a safety net for memory nobody released. A storage whose allocator gave a free action is
 * registered here: its memory goes back exactly once, either when the last tensor using it is closed (the normal
 * case: a scope closed it, or its owner did), or, for a storage that became unreachable with users left, when the
 * collector finds it. Such a late free is counted ({@link #lateFrees()}) and reported to a memory profile
 * ({@link MemoryEvents#collected}) with the op that allocated it, on the collector thread, before the free itself.
 *
 * <p>Design: each registration is a phantom reference to its storage on a queue of this class's own, kept reachable
 * in a doubly linked list until it has run (as {@link java.lang.ref.Cleaner} keeps its cleanables); one daemon
 * thread, {@code vantage-lifetimes}, takes what the collector enqueues and frees it. A queue of our own, rather than
 * a {@code Cleaner}, lets a test put a storage on it as the collector would ({@link #collectAsUnreachable}) instead of
 * waiting for the collector. Whichever comes first, the explicit release or the collector, wins a compare-and-set and
 * frees; the other does nothing.
 */
public final class Lifetimes {

    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    /** The sentinel of the list of registrations that have not run; its monitor guards every link. */
    private static final Lifetime LIVE = new Lifetime();
    private static final AtomicLong LATE_FREES = new AtomicLong();
    private static final AtomicLong LATE_BYTES = new AtomicLong();

    static {
        Thread collector = new Thread(Lifetimes::collect, "vantage-lifetimes");
        collector.setDaemon(true);
        collector.start();
    }

    private Lifetimes() {
    }

    /** One storage's free action, run once, explicitly or by the collector. */
    public static final class Lifetime extends PhantomReference<Object> {
        private static final VarHandle DONE;

        static {
            try {
                DONE = MethodHandles.lookup().findVarHandle(Lifetime.class, "done", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Runnable free;
        private final Device device;
        private final long address;
        private final long bytes;
        private final int origin;
        private volatile boolean done;
        private Lifetime prev;
        private Lifetime next;

        /** The list's sentinel. */
        private Lifetime() {
            super(null, null);
            this.free = null;
            this.device = null;
            this.address = 0;
            this.bytes = 0;
            this.origin = -1;
            prev = this;
            next = this;
        }

        private Lifetime(Object storage, Runnable free, Device device, long address, long bytes, int origin) {
            super(storage, QUEUE);
            this.free = free;
            this.device = device;
            this.address = address;
            this.bytes = bytes;
            this.origin = origin;
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
                MemoryEvents.collected(device.type(), MemoryTags.profileIndex(device), address,
                        origin < 0 ? "" : OpNames.name(origin));
                free.run();
            }
        }

        /** Takes the right to free; true once, for whoever asks first. */
        private boolean claim() {
            if (!DONE.compareAndSet(this, false, true)) {
                return false;
            }
            clear();
            synchronized (LIVE) {
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
        int origin = MemoryEvents.enabled() ? CallFrame.innermostNameId() : -1;
        Lifetime l = new Lifetime(storage, free, device, address, bytes, origin);
        synchronized (LIVE) {
            l.next = LIVE.next;
            l.prev = LIVE;
            LIVE.next.prev = l;
            LIVE.next = l;
        }
        return l;
    }

    /**
     * Puts a storage's registration on the queue, as the garbage collector does when it finds the storage
     * unreachable, so that the collector thread frees it as a late free; for tests, which cannot make the collector
     * run. Does nothing to a storage that was released or collected already.
     *
     * @return true if the storage had a registration that had not run
     */
    public static boolean collectAsUnreachable(Object storage) {
        Lifetime found = null;
        synchronized (LIVE) {
            for (Lifetime l = LIVE.next; l != LIVE; l = l.next) {
                if (l.refersTo(storage)) {
                    found = l;
                    break;
                }
            }
        }
        return found != null && found.enqueue();
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
