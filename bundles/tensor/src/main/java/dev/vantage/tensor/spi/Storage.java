package dev.vantage.tensor.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.internal.MemoryTags;

/**
 * The memory behind one or more tensors: a flat array of one dtype on one device. Views share a storage. The
 * array is a {@code float[]} for {@link DType#FLOAT32}, a {@code long[]} for {@link DType#INT64} and a
 * {@code boolean[]} for {@link DType#BOOL}; kernels read and write it directly. A backend creates storages in
 * {@link Backend#allocate}, where it counts them; an emulated device keeps its "device memory" in such arrays too.
 *
 * <p>The version counter is bumped by every in-place op, so autograd can tell when a tensor it saved for the
 * backward pass was modified.
 *
 * <p>A storage counts its users: the tensor it was made for is the first, every view over it and every tensor
 * autograd saved from it another ({@link #retain}). When the last one lets go ({@link #release}), the memory goes
 * back to its allocator at once, through the free action the backend gave {@link #create(Device, DType, int,
 * Object, long, Runnable)}, and no new user can take it. Kernels may still read the values after that: a device's
 * work runs after the host let go, as in torch, whose caching allocator reuses a block in stream order. A storage
 * nobody released is freed when the garbage collector finds it unreachable: a late free, counted
 * ({@link #lateFrees()}) and reported to a memory profile ({@link MemoryEvents#collected}) with the op that allocated
 * it, on the collector thread, before the free itself.
 *
 * <p>The collector as a safety net, design: a storage whose allocator gave a free action is registered with a
 * phantom reference to it ({@link Lifetime}) on a queue of this class's own, kept reachable in a doubly linked list
 * until it has run (as {@link java.lang.ref.Cleaner} keeps its cleanables). There are {@value Lifetimes#LISTS}
 * lists, each guarded by its sentinel's monitor, and a registration joins the list of the thread that allocates (by
 * thread id), so threads that allocate and free their own tensors take no monitor another thread takes: one global
 * list would make every allocation and every free of every thread queue on one lock. One daemon thread,
 * {@code vantage-lifetimes}, started with the first registration, takes what the collector enqueues and frees it. A
 * queue of our own, rather than a {@code Cleaner}, lets a test put a storage on it as the collector would
 * ({@link #collectAsUnreachable}) instead of waiting for the collector. Whichever comes first, the explicit release
 * or the collector, wins a compare-and-set and frees; the other does nothing. The op that allocated a storage is
 * told by the runtime right after the allocation ({@link #allocatedBy}), while a profile records memory:
 * registering looks nothing up.
 */
public final class Storage {

    /** What {@link #address()} returns for memory no allocator placed. */
    public static final long NO_ADDRESS = Long.MIN_VALUE;

    private static final VarHandle USERS;

    static {
        try {
            USERS = MethodHandles.lookup().findVarHandle(Storage.class, "users", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Device device;
    private final DType dtype;
    private final Object array;
    private final int size;
    private final AtomicInteger version = new AtomicInteger();
    private final Object handle;
    private final long address;
    private volatile int users = 1;
    /** The registration of the free action with the collector, or null for memory no allocator counts. */
    private Lifetime lifetime;

    private Storage(Device device, DType dtype, Object array, int size, Object handle, long address) {
        this.device = Objects.requireNonNull(device, "device");
        this.dtype = dtype;
        this.array = array;
        this.size = size;
        this.handle = handle;
        this.address = address;
    }

    /** Wraps a float array without copying it. */
    public static Storage wrap(Device device, float[] values) {
        return new Storage(device, DType.FLOAT32, values, values.length, null, NO_ADDRESS);
    }

    /** Wraps a long array without copying it. */
    public static Storage wrap(Device device, long[] values) {
        return new Storage(device, DType.INT64, values, values.length, null, NO_ADDRESS);
    }

    /** Wraps a boolean array without copying it. */
    public static Storage wrap(Device device, boolean[] values) {
        return new Storage(device, DType.BOOL, values, values.length, null, NO_ADDRESS);
    }

    /**
     * Creates a zero-filled storage, not counted by any allocator; for backends, which count what they create.
     *
     * @throws IllegalArgumentException if {@code size} is negative
     */
    public static Storage create(Device device, DType dtype, int size) {
        return create(device, dtype, size, null);
    }

    /**
     * Creates a zero-filled storage carrying a backend's handle to the memory behind it: for a device, its
     * driver's record of the block (address, the stream that last wrote it). Not counted by any allocator.
     *
     * @param handle what {@link #handle()} returns; may be null
     * @throws IllegalArgumentException if {@code size} is negative
     */
    public static Storage create(Device device, DType dtype, int size, Object handle) {
        return create(device, dtype, size, handle, NO_ADDRESS, null);
    }

    /**
     * Creates a zero-filled storage over memory an allocator counts. {@code free} gives the memory back, exactly
     * once: when the storage's last user releases it, or, if none ever does, when the garbage collector finds the
     * storage unreachable (a late free: counted, and reported to a memory profile before {@code free} runs, on the
     * runtime's collector thread, vantage-lifetimes). Create the storage after the allocation succeeded; if creating it fails, free the
     * memory yourself.
     *
     * @param handle what {@link #handle()} returns; may be null
     * @param address the block's address as the allocator reports it to a memory profile, so that the runtime can
     *     re-categorise the block; {@link #NO_ADDRESS} if it reports none
     * @param free gives the memory back to the allocator; null for memory no allocator counts
     * @throws IllegalArgumentException if {@code size} is negative
     * @throws OutOfMemoryError if the heap cannot hold the values; {@code free} has not run then
     */
    public static Storage create(Device device, DType dtype, int size, Object handle, long address, Runnable free) {
        if (size < 0) {
            throw new IllegalArgumentException("storage size must be 0 or more, not " + size);
        }
        Object array = switch (dtype) {
            case FLOAT32 -> new float[size];
            case INT64 -> new long[size];
            case BOOL -> new boolean[size];
        };
        Storage s = new Storage(device, dtype, array, size, handle, address);
        if (free != null) {
            s.lifetime = Lifetimes.register(s, free, device, address, s.nbytes());
        }
        return s;
    }

    /**
     * Returns the block's address as its allocator reported it to a memory profile, or {@link #NO_ADDRESS} for
     * memory no allocator placed.
     */
    public long address() {
        return address;
    }

    /**
     * Adds a user: a tensor viewing this storage, or a tensor autograd saved. Each user releases it once.
     *
     * @return this storage
     * @throws IllegalStateException if the storage was freed already
     */
    public Storage retain() {
        while (true) {
            int u = users;
            if (u <= 0) {
                throw freed();
            }
            if (USERS.compareAndSet(this, u, u + 1)) {
                return this;
            }
        }
    }

    /**
     * Removes a user; the last one frees the memory now.
     *
     * @throws IllegalStateException if every user released it already
     */
    public void release() {
        while (true) {
            int u = users;
            if (u <= 0) {
                throw new IllegalStateException("the storage of " + describe() + " was released once more than it"
                        + " was retained");
            }
            if (USERS.compareAndSet(this, u, u - 1)) {
                if (u == 1 && lifetime != null) {
                    lifetime.release();
                }
                return;
            }
        }
    }

    /** Returns true once the last user released this storage. */
    public boolean isFreed() {
        return users <= 0;
    }

    /** Returns how many users hold this storage now. */
    public int users() {
        return Math.max(0, users);
    }

    private String describe() {
        return size + " x " + dtype.profileName() + " on " + device;
    }

    private IllegalStateException freed() {
        return new IllegalStateException("the memory of " + describe() + " was freed: every tensor using it was"
                + " closed (by a TensorScope or close()); keep a tensor you still need with TensorScope.keep");
    }

    /** Returns the handle the backend attached when it created this storage, or null. */
    public Object handle() {
        return handle;
    }

    /** Returns the device the memory is on. */
    public Device device() {
        return device;
    }

    /** Returns the element type. */
    public DType dtype() {
        return dtype;
    }

    /** Returns the number of elements. */
    public int size() {
        return size;
    }

    /** Returns the size in bytes of the elements. */
    public long nbytes() {
        return (long) size * dtype.itemSize();
    }

    /**
     * Returns the float array.
     *
     * @throws IllegalStateException if the storage does not hold floats
     */
    public float[] floats() {
        if (dtype != DType.FLOAT32) {
            throw new IllegalStateException("storage holds " + dtype.profileName() + ", not float");
        }
        return (float[]) array;
    }

    /**
     * Returns the long array.
     *
     * @throws IllegalStateException if the storage does not hold longs
     */
    public long[] longs() {
        if (dtype != DType.INT64) {
            throw new IllegalStateException("storage holds " + dtype.profileName() + ", not long");
        }
        return (long[]) array;
    }

    /**
     * Returns the boolean array.
     *
     * @throws IllegalStateException if the storage does not hold booleans
     */
    public boolean[] bools() {
        if (dtype != DType.BOOL) {
            throw new IllegalStateException("storage holds " + dtype.profileName() + ", not bool");
        }
        return (boolean[]) array;
    }

    /**
     * Names the op that allocated this storage, for the report of a late free; the runtime calls it right after the
     * allocation while a profile records memory. Does nothing for a storage no allocator gave a free action.
     *
     * @param op the op's name id in {@code OpNames}, or -1 for none
     */
    public void allocatedBy(int op) {
        Lifetime l = lifetime;
        if (l != null) {
            l.allocatedBy(op);
        }
    }

    /** Returns how many storages the garbage collector freed because no one released them, since the start. */
    public static long lateFrees() {
        return Lifetimes.LATE_FREES.get();
    }

    /** Returns the bytes of those storages. */
    public static long lateFreeBytes() {
        return Lifetimes.LATE_BYTES.get();
    }

    /**
     * Puts a storage's registration on the queue, as the garbage collector does when it finds the storage
     * unreachable, so that the collector thread frees it as a late free; for tests (a backend's too), which cannot
     * make the collector run. Does nothing to a storage that was released or collected already.
     *
     * @return true if the storage had a registration that had not run
     */
    public static boolean collectAsUnreachable(Storage storage) {
        return Lifetimes.collectAsUnreachable(storage);
    }

    /** Returns how many in-place writes this storage has seen. */
    public int version() {
        return version.get();
    }

    /** Records an in-place write; the runtime calls it for every in-place op. */
    public void bumpVersion() {
        version.incrementAndGet();
    }

    /** One storage's free action, run once, explicitly or by the collector. */
    private static final class Lifetime extends PhantomReference<Object> {
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
        @SuppressWarnings("unused")   // through DONE
        private volatile boolean done;
        /** The sentinel of the list this registration is in; itself for a sentinel. */
        private final Lifetime list;
        private Lifetime prev;
        private Lifetime next;

        /** A list's sentinel. */
        Lifetime() {
            super(null, null);
            this.free = null;
            this.device = null;
            this.address = 0;
            this.bytes = 0;
            this.list = this;
            prev = this;
            next = this;
        }

        Lifetime(Object storage, ReferenceQueue<Object> queue, Runnable free, Device device, long address, long bytes,
                Lifetime list) {
            super(storage, queue);
            this.free = free;
            this.device = device;
            this.address = address;
            this.bytes = bytes;
            this.list = list;
        }

        /** Names the op that allocated the storage; released, so that the collector thread, which reads it later, sees it. */
        void allocatedBy(int op) {
            ORIGIN.setRelease(this, op);
        }

        /** Frees the memory now, as its last user released it; does nothing the second time. */
        void release() {
            if (claim()) {
                free.run();
            }
        }

        /** Runs on the collector thread once the storage was found unreachable without a release. */
        void collected() {
            if (claim()) {
                Lifetimes.LATE_FREES.incrementAndGet();
                Lifetimes.LATE_BYTES.addAndGet(bytes);
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
     * The registrations that have not run, their queue and the collector thread; initialised with the first
     * registration, so that a runtime that only wraps arrays starts no thread.
     */
    private static final class Lifetimes {
        private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
        /** How many lists registrations are kept in: a power of two, a few per core of a large machine. */
        static final int LISTS = 64;
        /** The sentinels of the lists of registrations that have not run; each one's monitor guards its list's links. */
        private static final Lifetime[] LIVE = new Lifetime[LISTS];
        static final AtomicLong LATE_FREES = new AtomicLong();
        static final AtomicLong LATE_BYTES = new AtomicLong();

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

        static Lifetime register(Object storage, Runnable free, Device device, long address, long bytes) {
            Lifetime list = LIVE[(int) Thread.currentThread().getId() & (LISTS - 1)];
            Lifetime l = new Lifetime(storage, QUEUE, free, device, address, bytes, list);
            synchronized (list) {
                l.next = list.next;
                l.prev = list;
                list.next.prev = l;
                list.next = l;
            }
            return l;
        }

        static boolean collectAsUnreachable(Object storage) {
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
}
