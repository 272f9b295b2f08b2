package dev.vantage.tensor.spi;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;

/**
 * The memory behind one or more tensors: a flat array of one dtype on one device. Views share a storage. The
 * array is a {@code float[]} for {@link DType#FLOAT32}, a {@code long[]} for {@link DType#INT64} and a
 * {@code boolean[]} for {@link DType#BOOL}; kernels read and write it directly. A backend creates storages in
 * {@link Backend#allocate}, where it counts them; an emulated device keeps its "device memory" in such arrays too.
 *
 * <p>The version counter is bumped by every in-place op, so autograd can tell when a tensor it saved for the
 * backward pass was modified.
 */
public final class Storage {

    private final Device device;
    private final DType dtype;
    private final Object array;
    private final int size;
    private final AtomicInteger version = new AtomicInteger();
    private final Object handle;

    private Storage(Device device, DType dtype, Object array, int size, Object handle) {
        this.device = Objects.requireNonNull(device, "device");
        this.dtype = dtype;
        this.array = array;
        this.size = size;
        this.handle = handle;
    }

    /** Wraps a float array without copying it. */
    public static Storage wrap(Device device, float[] values) {
        return new Storage(device, DType.FLOAT32, values, values.length, null);
    }

    /** Wraps a long array without copying it. */
    public static Storage wrap(Device device, long[] values) {
        return new Storage(device, DType.INT64, values, values.length, null);
    }

    /** Wraps a boolean array without copying it. */
    public static Storage wrap(Device device, boolean[] values) {
        return new Storage(device, DType.BOOL, values, values.length, null);
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
        if (size < 0) {
            throw new IllegalArgumentException("storage size must be 0 or more, not " + size);
        }
        Object array = switch (dtype) {
            case FLOAT32 -> new float[size];
            case INT64 -> new long[size];
            case BOOL -> new boolean[size];
        };
        return new Storage(device, dtype, array, size, handle);
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
