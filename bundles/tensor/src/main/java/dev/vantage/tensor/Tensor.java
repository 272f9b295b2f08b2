package dev.vantage.tensor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.spi.Storage;

/**
 * A dense strided tensor, in PyTorch's style: a view of a {@link Storage} with sizes, strides and an offset.
 * Views ({@link #view}, {@link #transpose}, {@link #slice}, ...) share the storage; ops return new tensors, and
 * the in-place forms ({@code add_}, named as in torch) write into this one. Every op goes through the dispatcher,
 * which runs the kernel of the tensor's device and calls the profiler's dispatch hooks; ops on tensors that
 * require gradients are recorded for {@link #backward()}.
 *
 * <p>A tensor holds its storage's memory until it is closed ({@link #close}), by the {@link TensorScope} it was
 * made in or by its owner; views and the tensors autograd saved share the memory, which goes back to the device
 * when the last of them is closed. A tensor nobody closes is freed by the garbage collector, later.
 *
 * <p>This file is long because it is the whole public surface of a tensor; the ops themselves live in the
 * package's op classes. Not thread-safe for writes: in-place ops and gradient accumulation on one tensor from
 * several threads need outside synchronisation, as in torch. Reading from several threads is safe.
 */
public final class Tensor implements AutoCloseable {

    private static final VarHandle CLOSED;

    static {
        try {
            CLOSED = MethodHandles.lookup().findVarHandle(Tensor.class, "closed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Storage storage;
    final int[] sizes;
    final int[] strides;
    final int offset;
    /** The number of elements: the product of the sizes, which never change. */
    final int numel;
    /** The scope that closes this tensor, or null; owned by {@link TensorScope}. */
    TensorScope scope;
    /** Read by the op template directly, as every op checks it: written once, by {@link #close}. */
    volatile boolean closed;

    // autograd state, owned by Autograd
    boolean requiresGrad;
    Tensor grad;
    Node gradFn;
    Node accumulator;
    Consumer<Tensor>[] postAccumulateHooks;

    static {
        Autograd.bindHooks();
    }

    /**
     * A tensor that takes over its storage's first user: a new storage's, made for it. It joins no scope: whoever
     * makes it says where it belongs (the op template, with the thread's state it looked up, or a factory).
     * {@code sizes} and {@code strides} are never written once a tensor has them, so tensors may share them.
     */
    Tensor(Storage storage, int[] sizes, int[] strides, int offset) {
        this(storage, sizes, strides, offset, Shapes.numel(sizes));
    }

    /** The same, given the number of elements, which the caller computed from {@code sizes} already. */
    Tensor(Storage storage, int[] sizes, int[] strides, int offset, int numel) {
        this.storage = storage;
        this.sizes = sizes;
        this.strides = strides;
        this.offset = offset;
        this.numel = numel;
    }

    /** A tensor over a storage that another tensor uses too (a view); it adds a user. Joins no scope by itself. */
    static Tensor view(Tensor base, int[] sizes, int[] strides, int offset) {
        base.requireOpen("a view");
        return new Tensor(base.storage.retain(), sizes, strides, offset);
    }

    /**
     * Another tensor over the same elements of the same storage, joining no scope: what autograd saves and the
     * engine passes on, closed by whoever made it.
     */
    static Tensor alias(Tensor base) {
        return view(base, base.sizes, base.strides, base.offset);
    }

    // ---------------------------------------------------------------- factories

    /**
     * Wraps host values as a CPU tensor, without copying.
     *
     * @throws IllegalArgumentException if the shape does not match the number of values or has a negative size
     */
    public static Tensor of(float[] values, long... shape) {
        return contiguous(Storage.wrap(Device.CPU, Objects.requireNonNull(values, "values")), shape);
    }

    /** Wraps host int64 values (indices, labels) as a CPU tensor, without copying. */
    public static Tensor ofLongs(long[] values, long... shape) {
        return contiguous(Storage.wrap(Device.CPU, Objects.requireNonNull(values, "values")), shape);
    }

    /** Wraps host booleans (a mask) as a CPU tensor, without copying. */
    public static Tensor ofBools(boolean[] values, long... shape) {
        return contiguous(Storage.wrap(Device.CPU, Objects.requireNonNull(values, "values")), shape);
    }

    /** A 0-d float tensor holding one value. */
    public static Tensor scalar(float value) {
        return of(new float[] {value});
    }

    /**
     * A contiguous tensor over a storage; for backends and their tests.
     *
     * @throws IllegalArgumentException if the shape does not match the storage size
     */
    public static Tensor wrap(Storage storage, long... shape) {
        return contiguous(Objects.requireNonNull(storage, "storage"), shape);
    }

    /** A float tensor of zeros on the host. */
    public static Tensor zeros(long... shape) {
        return Creation.zeros(Device.CPU, DType.FLOAT32, Shapes.checked(shape));
    }

    /** A tensor of zeros of a dtype on a device, allocated by its backend. */
    public static Tensor zeros(Device device, DType dtype, long... shape) {
        return Creation.zeros(Objects.requireNonNull(device, "device"), Objects.requireNonNull(dtype, "dtype"),
                Shapes.checked(shape));
    }

    /** A float tensor of ones on the host. */
    public static Tensor ones(long... shape) {
        return full(1f, shape);
    }

    /** A float tensor filled with one value on the host. */
    public static Tensor full(float value, long... shape) {
        return Creation.full(Device.CPU, value, Shapes.checked(shape));
    }

    /** {@code [0, 1, ..., n - 1]} as int64 on the host. */
    public static Tensor arange(long n) {
        long[] v = new long[Math.toIntExact(n)];
        for (int i = 0; i < v.length; i++) {
            v[i] = i;
        }
        return ofLongs(v, n);
    }

    /**
     * Normally distributed values (mean 0, deviation 1) on the host, reproducible from a seed.
     *
     * @throws IllegalArgumentException if a size is negative or the tensor is too large
     */
    public static Tensor randn(long seed, long... shape) {
        int[] s = Shapes.checked(shape);
        SplittableRandom random = new SplittableRandom(seed);
        Tensor out = host(s);
        float[] values = out.storage.floats();
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
        return out;
    }

    /** Values drawn uniformly from {@code [low, high)} on the host, reproducible from a seed. */
    public static Tensor uniform(long seed, float low, float high, long... shape) {
        int[] s = Shapes.checked(shape);
        SplittableRandom random = new SplittableRandom(seed);
        Tensor out = host(s);
        float[] values = out.storage.floats();
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) (low + (high - low) * random.nextDouble());
        }
        return out;
    }

    /**
     * A host float tensor to fill: from the host backend's allocator, so that a memory profile counts it, or over a
     * plain array when no host backend is installed.
     */
    private static Tensor host(int[] sizes) {
        if (Dispatcher.installedDeviceTypes().contains(Device.CPU.type())) {
            return Op.empty(Device.CPU, DType.FLOAT32, sizes);
        }
        Tensor t = new Tensor(Storage.wrap(Device.CPU, new float[Shapes.numel(sizes)]), sizes,
                Shapes.contiguousStrides(sizes), 0);
        TensorScope.adopt(t);
        return t;
    }

    /** A factory's tensor over a storage: it joins the scope open on this thread, if any. */
    private static Tensor contiguous(Storage storage, long[] shape) {
        int[] s = Shapes.checked(shape);
        if (Shapes.numel(s) != storage.size()) {
            throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " holds " + Shapes.numel(s)
                    + " values, not " + storage.size());
        }
        Tensor t = new Tensor(storage, s, Shapes.contiguousStrides(s), 0);
        TensorScope.adopt(t);
        return t;
    }

    // ---------------------------------------------------------------- properties

    /** Returns a copy of the shape. */
    public long[] shape() {
        return Shapes.toLongs(sizes);
    }

    /** Returns the number of dimensions. */
    public int dim() {
        return sizes.length;
    }

    /**
     * Returns the size of one dimension; a negative {@code dim} counts from the end.
     *
     * @throws IndexOutOfBoundsException if the tensor has no such dimension
     */
    public int size(int dim) {
        return sizes[dim < 0 ? dim + sizes.length : dim];
    }

    /** Returns a copy of the sizes. */
    public int[] sizes() {
        return sizes.clone();
    }

    /** Returns a copy of the strides, in elements. */
    public int[] strides() {
        return strides.clone();
    }

    /** Returns the stride of one dimension, in elements. */
    public int stride(int dim) {
        return strides[dim < 0 ? dim + strides.length : dim];
    }

    /** Returns where the first element sits in the storage. */
    public int storageOffset() {
        return offset;
    }

    /** Returns the number of elements. */
    public int numel() {
        return numel;
    }

    /** Returns true when the elements are laid out row-major without gaps. */
    public boolean isContiguous() {
        int expected = 1;
        for (int i = sizes.length - 1; i >= 0; i--) {
            if (sizes[i] != 1 && strides[i] != expected) {
                return false;
            }
            expected *= sizes[i];
        }
        return true;
    }

    /** Returns the device. */
    public Device device() {
        return storage.device();
    }

    /** Returns the element type. */
    public DType dtype() {
        return storage.dtype();
    }

    /** Returns the storage; kernels read and write it. */
    public Storage storage() {
        return storage;
    }

    // ---------------------------------------------------------------- lifetime

    /**
     * Closes this tensor: its share of the memory goes back now, and the memory itself when no view and no tensor
     * autograd saved uses it any more. A leaf's gradient is closed with it, and a graph that only this tensor
     * reached lets go of what it saved. Closing twice does nothing; a closed tensor cannot be used in an op.
     */
    @Override
    public void close() {
        if (!CLOSED.compareAndSet(this, false, true)) {
            return;
        }
        scope = null;
        Tensor g = grad;
        if (g != null) {
            grad = null;
            g.close();
        }
        Node fn = gradFn;
        if (fn != null) {
            Autograd.release(fn);
        }
        storage.release();
    }

    /** Returns true once {@link #close} ran. */
    public boolean isClosed() {
        return closed;
    }

    /** Fails when this tensor was closed, naming what wanted it. */
    void requireOpen(String what) {
        if (closed) {
            throw closedError(what);
        }
    }

    /** The error of using this tensor, closed, in {@code what}. */
    IllegalStateException closedError(String what) {
        return new IllegalStateException(what + ": the tensor of shape " + Shapes.str(this) + " on " + device()
                + " was closed (by a TensorScope or close()); keep a tensor you still need with TensorScope.keep");
    }

    // ---------------------------------------------------------------- values

    /** Returns the values as floats, row-major, copied to the host first if needed. */
    public float[] toFloatArray() {
        Tensor host = Creation.hostValues(this);
        try {
            return host.storage.floats().clone();
        } finally {
            Creation.closeCopy(host, this);
        }
    }

    /** Returns the values of an int64 tensor, row-major, copied to the host first if needed. */
    public long[] toLongArray() {
        Tensor host = Creation.hostValues(this);
        try {
            return host.storage.longs().clone();
        } finally {
            Creation.closeCopy(host, this);
        }
    }

    /** Returns the values of a bool tensor, row-major, copied to the host first if needed. */
    public boolean[] toBoolArray() {
        Tensor host = Creation.hostValues(this);
        try {
            return host.storage.bools().clone();
        } finally {
            Creation.closeCopy(host, this);
        }
    }

    /**
     * Returns the value of a one-element tensor, as a float.
     *
     * @throws IllegalStateException if the tensor has more or fewer than one element
     */
    public float item() {
        if (numel() != 1) {
            throw new IllegalStateException("item() needs a one-element tensor, not shape " + Arrays.toString(sizes));
        }
        Tensor host = Creation.hostValues(this);
        try {
            Storage s = host.storage;
            return switch (s.dtype()) {
                case FLOAT32 -> s.floats()[0];
                case INT64 -> s.longs()[0];
                case BOOL -> s.bools()[0] ? 1f : 0f;
            };
        } finally {
            Creation.closeCopy(host, this);
        }
    }

    // ---------------------------------------------------------------- autograd

    /** Returns true when ops on this tensor are recorded for the backward pass. */
    public boolean requiresGrad() {
        return requiresGrad;
    }

    /**
     * Marks a leaf tensor as needing a gradient, like torch's {@code requires_grad_()}; returns this tensor.
     *
     * @throws IllegalArgumentException if the tensor is not float, or is the result of a recorded op
     */
    public Tensor requiresGrad(boolean value) {
        Autograd.setRequiresGrad(this, value);
        return this;
    }

    /** Returns the accumulated gradient of a leaf, or null before any backward pass or after a reset. */
    public Tensor grad() {
        return grad;
    }

    /**
     * Replaces the gradient; null clears it, as optimizers' {@code zero_grad} does. The leaf owns its gradient: the
     * one replaced is closed (its memory freed, as torch frees a gradient set to none), and the new one leaves its
     * scope, to live until it is replaced or the leaf is closed. Copy a gradient you want to keep past that.
     */
    public void setGrad(Tensor value) {
        Tensor old = grad;
        grad = TensorScope.escape(value);
        if (old != null && old != value) {
            old.close();
        }
    }

    /** Returns true for a tensor no recorded op produced: created by the user, or not needing a gradient. */
    public boolean isLeaf() {
        return gradFn == null;
    }

    /** Returns the name of the function that computes this tensor's gradient, such as {@code MmBackward0}. */
    public String gradFnName() {
        return gradFn == null ? null : gradFn.name();
    }

    /**
     * Computes the gradient of this one-element tensor with respect to every leaf that requires one, and adds it
     * to their {@link #grad()}. The graph is freed afterwards.
     *
     * @throws IllegalStateException if the tensor has more than one element or does not require a gradient; the
     *     message names the op that produced it and the shape
     */
    public void backward() {
        Autograd.backward(this, null, false);
    }

    /**
     * Computes gradients seeded with {@code gradient}, which must have this tensor's shape.
     *
     * @param retainGraph keep the graph so that backward can run again
     */
    public void backward(Tensor gradient, boolean retainGraph) {
        Autograd.backward(this, Objects.requireNonNull(gradient, "gradient"), retainGraph);
    }

    /** Returns a view sharing storage that no op records, like torch's {@code detach()}. */
    public Tensor detach() {
        return Views.detach(this);
    }

    // ---------------------------------------------------------------- views

    /** A view with another shape; one size may be -1. Needs a compatible layout; see {@link #reshape}. */
    public Tensor view(long... shape) {
        return Views.view(this, shape);
    }

    /** Like {@link #view}, copying first when the layout does not allow a view. */
    public Tensor reshape(long... shape) {
        return Views.reshape(this, shape);
    }

    /** Swaps two dimensions, as a view. */
    public Tensor transpose(int dim0, int dim1) {
        return Views.transpose(this, dim0, dim1);
    }

    /** Transposes a 2-d tensor, as a view. */
    public Tensor t() {
        return Views.t(this);
    }

    /** Reorders the dimensions, as a view. */
    public Tensor permute(int... dims) {
        return Views.permute(this, dims);
    }

    /** Elements {@code [start, end)} along a dimension, as a view. */
    public Tensor slice(int dim, long start, long end) {
        return Views.slice(this, dim, start, end);
    }

    /** Inserts a dimension of size 1, as a view. */
    public Tensor unsqueeze(int dim) {
        return Views.unsqueeze(this, dim);
    }

    /** Removes a dimension of size 1, as a view. */
    public Tensor squeeze(int dim) {
        return Views.squeeze(this, dim);
    }

    /** Repeats size-1 dimensions to a larger shape without copying; -1 keeps a size. */
    public Tensor expand(long... shape) {
        return Views.expand(this, shape);
    }

    /** Flattens the dimensions from {@code startDim} on into one. */
    public Tensor flatten(int startDim) {
        return Views.flatten(this, startDim);
    }

    /** Returns this tensor if contiguous, otherwise a contiguous copy. */
    public Tensor contiguous() {
        return Views.contiguous(this);
    }

    /** A contiguous copy. */
    public Tensor copy() {
        return Views.cloneOf(this);
    }

    /** Copies the tensor to a device; returns this tensor when it is already there. */
    public Tensor to(Device device) {
        return Views.to(this, Objects.requireNonNull(device, "device"), dtype());
    }

    /** Converts the tensor to a dtype; returns this tensor when it already has it. */
    public Tensor to(DType dtype) {
        return Views.to(this, device(), Objects.requireNonNull(dtype, "dtype"));
    }

    // ---------------------------------------------------------------- pointwise

    /** {@code this + other}, broadcasting. */
    public Tensor add(Tensor other) {
        return Pointwise.add(this, other, 1);
    }

    /** {@code this + alpha * other}, broadcasting. */
    public Tensor add(Tensor other, double alpha) {
        return Pointwise.add(this, other, alpha);
    }

    /** {@code this + value}. */
    public Tensor add(double value) {
        return Pointwise.add(this, value);
    }

    /** {@code this - other}, broadcasting. */
    public Tensor sub(Tensor other) {
        return Pointwise.sub(this, other);
    }

    /** {@code this - value}. */
    public Tensor sub(double value) {
        return Pointwise.add(this, -value);
    }

    /** {@code this * other}, broadcasting. */
    public Tensor mul(Tensor other) {
        return Pointwise.mul(this, other);
    }

    /** {@code this * value}. */
    public Tensor mul(double value) {
        return Pointwise.mul(this, value);
    }

    /** {@code this / other}, broadcasting. */
    public Tensor div(Tensor other) {
        return Pointwise.div(this, other);
    }

    /** {@code this / value}. */
    public Tensor div(double value) {
        return Pointwise.mul(this, 1.0 / value);
    }

    /** {@code -this}. */
    public Tensor neg() {
        return Pointwise.unary(Pointwise.NEG, this);
    }

    /** {@code e ^ this}. */
    public Tensor exp() {
        return Pointwise.unary(Pointwise.EXP, this);
    }

    /** The natural logarithm. */
    public Tensor log() {
        return Pointwise.unary(Pointwise.LOG, this);
    }

    /** The square root. */
    public Tensor sqrt() {
        return Pointwise.unary(Pointwise.SQRT, this);
    }

    /** {@code this ^ exponent}. */
    public Tensor pow(double exponent) {
        return Pointwise.pow(this, exponent);
    }

    /** {@code max(this, 0)}. */
    public Tensor relu() {
        return Pointwise.unary(Pointwise.RELU, this);
    }

    /** The exact (erf) GELU. */
    public Tensor gelu() {
        return Pointwise.unary(Pointwise.GELU, this);
    }

    /** The hyperbolic tangent. */
    public Tensor tanh() {
        return Pointwise.unary(Pointwise.TANH, this);
    }

    /** The logistic sigmoid. */
    public Tensor sigmoid() {
        return Pointwise.unary(Pointwise.SIGMOID, this);
    }

    /** In place: {@code this += alpha * other}. */
    public Tensor add_(Tensor other, double alpha) {
        return Pointwise.add_(this, Objects.requireNonNull(other, "other"), 0, alpha);
    }

    /** In place: {@code this += value}. */
    public Tensor add_(double value) {
        return Pointwise.add_(this, null, value, 1);
    }

    /** In place: {@code this *= other}. */
    public Tensor mul_(Tensor other) {
        return Pointwise.mul_(this, Objects.requireNonNull(other, "other"), 0);
    }

    /** In place: {@code this *= value}. */
    public Tensor mul_(double value) {
        return Pointwise.mul_(this, null, value);
    }

    /** In place: {@code this /= other}. */
    public Tensor div_(Tensor other) {
        return Pointwise.div_(this, other);
    }

    /** In place: {@code this += value * t1 * t2}. */
    public Tensor addcmul_(Tensor t1, Tensor t2, double value) {
        return Pointwise.addc(Pointwise.ADDCMUL_, this, t1, t2, value);
    }

    /** In place: {@code this += value * t1 / t2}. */
    public Tensor addcdiv_(Tensor t1, Tensor t2, double value) {
        return Pointwise.addc(Pointwise.ADDCDIV_, this, t1, t2, value);
    }

    /** In place: every element set to {@code value}. */
    public Tensor fill_(double value) {
        return Creation.fill(this, value);
    }

    /** In place: every element set to zero. */
    public Tensor zero_() {
        return Creation.zero(this);
    }

    /** In place: copies {@code src} (broadcast to this shape, from any device or dtype) into this tensor. */
    public Tensor copy_(Tensor src) {
        return Views.copyInto(this, Objects.requireNonNull(src, "src"));
    }

    // ---------------------------------------------------------------- reductions and linear algebra

    /** The sum of all elements, as a 0-d tensor. */
    public Tensor sum() {
        return Reductions.sum(this, null, false, false);
    }

    /** The sum over some dimensions. */
    public Tensor sum(int[] dims, boolean keepDim) {
        return Reductions.sum(this, Objects.requireNonNull(dims, "dims"), keepDim, false);
    }

    /** The mean of all elements, as a 0-d tensor. */
    public Tensor mean() {
        return Reductions.sum(this, null, false, true);
    }

    /** The mean over some dimensions. */
    public Tensor mean(int[] dims, boolean keepDim) {
        return Reductions.sum(this, Objects.requireNonNull(dims, "dims"), keepDim, true);
    }

    /** The index of the largest element along a dimension, as int64. */
    public Tensor argmax(int dim, boolean keepDim) {
        return Reductions.argmax(this, dim, keepDim);
    }

    /** Softmax along a dimension. */
    public Tensor softmax(int dim) {
        return Reductions.softmax(this, dim, false);
    }

    /** Log-softmax along a dimension. */
    public Tensor logSoftmax(int dim) {
        return Reductions.softmax(this, dim, true);
    }

    /** The matrix product, with torch's rules for 1-d, 2-d and batched inputs. */
    public Tensor matmul(Tensor other) {
        return Linalg.matmul(this, Objects.requireNonNull(other, "other"));
    }

    /** The product of two 2-d tensors. */
    public Tensor mm(Tensor other) {
        return Linalg.mm(this, Objects.requireNonNull(other, "other"));
    }

    /** The product of two batches of matrices, {@code [B, m, k] x [B, k, n]}. */
    public Tensor bmm(Tensor other) {
        return Linalg.bmm(this, Objects.requireNonNull(other, "other"));
    }

    /** Rows (or slices along {@code dim}) picked by an int64 index. */
    public Tensor indexSelect(int dim, Tensor index) {
        return Views.indexSelect(this, dim, Objects.requireNonNull(index, "index"));
    }

    /** Joins tensors along a dimension. */
    public static Tensor cat(int dim, Tensor... tensors) {
        return Views.cat(tensors, dim);
    }

    @Override
    public String toString() {
        String s = "Tensor(shape=" + Arrays.toString(sizes) + ", dtype=" + dtype().profileName() + ", device="
                + device();
        return gradFn != null ? s + ", grad_fn=" + gradFn.name() + ")" : requiresGrad ? s + ", requires_grad)"
                : s + ")";
    }
}
