package dev.vantage.tensor.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.internal.Lifetimes;

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
 * nobody released is freed when the garbage collector finds it unreachable: a late free, counted and reported to a
 * memory profile.
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
    private Lifetimes.Lifetime lifetime;

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

    /** Returns how many in-place writes this storage has seen. */
    public int version() {
        return version.get();
    }

    /** Records an in-place write; the runtime calls it for every in-place op. */
    public void bumpVersion() {
        version.incrementAndGet();
    }
}
