package dev.vantage.tensor.spi;

import java.util.Arrays;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;

/**
 * One call of a {@link Kernel}: tensor inputs, preallocated outputs, and the op's other arguments, each by
 * position as {@link KernelOps} documents for the op. An in-place op's output 0 is its input 0. An elementwise
 * kernel asks {@link #dense()} whether one loop over the arrays ({@link #floats}, {@link #outputFloats}) does.
 */
public final class KernelCall {

    private static final double[] NO_SCALARS = {};
    private static final long[][] NO_INTS = {};

    private final String op;
    private final Tensor[] inputs;
    /** Output 0, and every output of a call with several; null for a call of one output, which needs no array. */
    private final Tensor output;
    private final Tensor[] outputs;
    private final double[] scalars;
    private final long[][] ints;
    /** 0 not looked at yet, 1 dense, 2 not. */
    private byte dense;

    /**
     * Creates a call; the runtime does this, and so may tests of a kernel.
     *
     * @param op the kernel name, for messages
     * @param inputs tensor inputs; an optional input may be null
     * @param outputs outputs to fill
     * @param scalars scalar arguments, or null for none
     * @param ints integer-list arguments (dims, strides, paddings), or null for none
     */
    public KernelCall(String op, Tensor[] inputs, Tensor[] outputs, double[] scalars, long[][] ints) {
        this.op = op;
        this.inputs = inputs;
        this.output = outputs.length > 0 ? outputs[0] : null;
        this.outputs = outputs;
        this.scalars = scalars == null ? NO_SCALARS : scalars;
        this.ints = ints == null ? NO_INTS : ints;
    }

    /**
     * Creates a call with one output, as most ops have; the runtime does this, and so may tests of a kernel.
     *
     * @param op the kernel name, for messages
     * @param inputs tensor inputs; an optional input may be null
     * @param output the output to fill
     * @param scalars scalar arguments, or null for none
     * @param ints integer-list arguments (dims, strides, paddings), or null for none
     * @since 3.2
     */
    public KernelCall(String op, Tensor[] inputs, Tensor output, double[] scalars, long[][] ints) {
        this.op = op;
        this.inputs = inputs;
        this.output = output;
        this.outputs = null;
        this.scalars = scalars == null ? NO_SCALARS : scalars;
        this.ints = ints == null ? NO_INTS : ints;
    }

    /** Returns the kernel name, such as {@code aten::mm}. */
    public String op() {
        return op;
    }

    /** Returns the number of tensor inputs. */
    public int inputCount() {
        return inputs.length;
    }

    /** Returns a tensor input; null for an absent optional input such as a bias. */
    public Tensor input(int index) {
        return inputs[index];
    }

    /** Returns the number of outputs. */
    public int outputCount() {
        return outputs == null ? 1 : outputs.length;
    }

    /** Returns an output to fill. */
    public Tensor output(int index) {
        return outputs == null ? single(index) : outputs[index];
    }

    private Tensor single(int index) {
        if (index != 0) {
            throw new IndexOutOfBoundsException(op + " has one output, not " + (index + 1));
        }
        return output;
    }

    /** Returns a scalar argument. */
    public double scalar(int index) {
        return scalars[index];
    }

    /** Returns an integer-list argument; do not modify it. */
    public long[] ints(int index) {
        return ints[index];
    }

    /** Returns one integer argument, stored as a one-element list. */
    public long integer(int index) {
        return ints[index][0];
    }

    /**
     * Returns true when output 0 and every tensor input are contiguous with the same shape, and no input shares
     * output 0's memory in another layout: element {@code i} of each is at its storage offset + {@code i}, so an
     * elementwise kernel runs one loop over the arrays. Looked at once per call, allocating nothing.
     *
     * @since 3.2
     */
    public boolean dense() {
        if (dense == 0) {
            dense = isDense() ? (byte) 1 : (byte) 2;
        }
        return dense == 1;
    }

    private boolean isDense() {
        Tensor out = output;
        if (!out.isContiguous()) {
            return false;
        }
        for (Tensor in : inputs) {
            if (in == null) {
                continue;
            }
            if (in.dim() != out.dim() || !in.isContiguous()
                    || in.storage() == out.storage() && in.storageOffset() != out.storageOffset()) {
                return false;
            }
            for (int d = 0; d < in.dim(); d++) {
                if (in.size(d) != out.size(d)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Returns the float elements of an input: its storage's array, the input's element 0 at its storage offset.
     *
     * @throws IllegalArgumentException if the input does not hold floats; the message names the op and the input
     * @since 3.2
     */
    public float[] floats(int index) {
        Tensor t = inputs[index];
        if (t.dtype() != DType.FLOAT32) {
            throw notFloat(t);
        }
        return t.storage().floats();
    }

    /**
     * Returns the float elements of an output, as {@link #floats} does an input's.
     *
     * @throws IllegalArgumentException if the output does not hold floats; the message names the op and the output
     * @since 3.2
     */
    public float[] outputFloats(int index) {
        Tensor t = output(index);
        if (t.dtype() != DType.FLOAT32) {
            throw notFloat(t);
        }
        return t.storage().floats();
    }

    private IllegalArgumentException notFloat(Tensor t) {
        return new IllegalArgumentException(op + ": expected a float tensor, got " + Arrays.toString(t.shape()) + " "
                + t.dtype().profileName());
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(op).append('(');
        for (int i = 0; i < inputs.length; i++) {
            s.append(i == 0 ? "" : ", ").append(inputs[i] == null ? "None" : Arrays.toString(inputs[i].shape()));
        }
        return s.append(')').toString();
    }
}
