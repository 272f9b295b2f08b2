package dev.vantage.tensor;

import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;

import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.FloatStorage;

/**
 * A dense, contiguous float32 tensor. Immutable in shape and device; ops return new tensors. Every op goes
 * through the dispatcher, which picks the kernel of the tensor's device and calls the profiler's dispatch hooks.
 */
public final class Tensor {

    private final FloatStorage storage;
    private final long[] shape;
    private final Device device;

    private Tensor(FloatStorage storage, long[] shape, Device device) {
        this.storage = storage;
        this.shape = shape;
        this.device = device;
    }

    /**
     * Wraps host values as a CPU tensor, without copying.
     *
     * @param values row-major values; not null
     * @param shape the shape; its product must equal the number of values
     * @throws IllegalArgumentException if the shape does not match the number of values or has a negative size
     */
    public static Tensor of(float[] values, long... shape) {
        return new Tensor(new FloatStorage(Objects.requireNonNull(values, "values")), checkShape(shape, values.length),
                Device.CPU);
    }

    /**
     * Creates a CPU tensor over a storage; for kernels, which create their outputs this way.
     *
     * @throws IllegalArgumentException if the shape does not match the storage size
     */
    public static Tensor of(FloatStorage storage, long... shape) {
        return new Tensor(storage, checkShape(shape, storage.size()), Device.CPU);
    }

    /**
     * Creates a CPU tensor of normally distributed values (mean 0, deviation 1), reproducible from a seed.
     *
     * @throws IllegalArgumentException if a size is negative or the tensor is too large
     */
    public static Tensor randn(long seed, long... shape) {
        long n = numel(shape);
        if (n > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("tensor of shape " + Arrays.toString(shape) + " is too large");
        }
        SplittableRandom random = new SplittableRandom(seed);
        float[] values = new float[(int) n];
        for (int i = 0; i < values.length; i += 2) {
            // Box-Muller: two normal values from two uniform ones
            double u = 1.0 - random.nextDouble();
            double v = random.nextDouble();
            double r = Math.sqrt(-2.0 * Math.log(u));
            values[i] = (float) (r * Math.cos(2 * Math.PI * v));
            if (i + 1 < values.length) {
                values[i + 1] = (float) (r * Math.sin(2 * Math.PI * v));
            }
        }
        return of(values, shape);
    }

    private static long[] checkShape(long[] shape, int size) {
        long n = numel(Objects.requireNonNull(shape, "shape"));
        if (n != size) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " holds " + n + " values, not "
                    + size);
        }
        return shape.clone();
    }

    private static long numel(long[] shape) {
        long n = 1;
        for (long s : shape) {
            if (s < 0) {
                throw new IllegalArgumentException("negative size in shape " + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, s);
        }
        return n;
    }

    /** Returns a copy of the shape. */
    public long[] shape() {
        return shape.clone();
    }

    /** Returns the number of dimensions. */
    public int dim() {
        return shape.length;
    }

    /**
     * Returns the size of one dimension.
     *
     * @throws IndexOutOfBoundsException if the tensor has no such dimension
     */
    public long size(int dim) {
        return shape[dim];
    }

    /** Returns the number of elements. */
    public long numel() {
        return numel(shape);
    }

    /** Returns the device. */
    public Device device() {
        return device;
    }

    /** Returns the dtype name, as profiles show it. */
    public String dtype() {
        return "float";
    }

    /** Returns the storage; kernels read and write it. */
    public FloatStorage storage() {
        return storage;
    }

    /** Returns a copy of the values, row-major. */
    public float[] toArray() {
        return storage.array().clone();
    }

    /**
     * Returns the value of a one-element tensor.
     *
     * @throws IllegalStateException if the tensor has more or fewer than one element
     */
    public float item() {
        if (numel() != 1) {
            throw new IllegalStateException("item() needs a one-element tensor, not shape " + Arrays.toString(shape));
        }
        return storage.array()[0];
    }

    /** Elementwise sum; shapes must be equal. */
    public Tensor add(Tensor other) {
        return Dispatcher.binary(Ops.ADD, this, other);
    }

    /** Elementwise product; shapes must be equal. */
    public Tensor mul(Tensor other) {
        return Dispatcher.binary(Ops.MUL, this, other);
    }

    /** Matrix product of two 2-d tensors, {@code [m, k] x [k, n] -> [m, n]}. */
    public Tensor matmul(Tensor other) {
        return Dispatcher.binary(Ops.MATMUL, this, other);
    }

    /** Sum of all elements, as a 0-d tensor. */
    public Tensor sum() {
        return Dispatcher.unary(Ops.SUM, this);
    }

    @Override
    public String toString() {
        return "Tensor(shape=" + Arrays.toString(shape) + ", dtype=float, device=" + device + ")";
    }
}
