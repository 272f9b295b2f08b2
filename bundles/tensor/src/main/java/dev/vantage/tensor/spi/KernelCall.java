package dev.vantage.tensor.spi;

import java.util.Arrays;

import dev.vantage.tensor.Tensor;

/**
 * One call of a {@link Kernel}: tensor inputs, preallocated outputs, and the op's other arguments, each by
 * position as {@link KernelOps} documents for the op. An in-place op's output 0 is its input 0.
 */
public final class KernelCall {

    private static final double[] NO_SCALARS = {};
    private static final long[][] NO_INTS = {};

    private final String op;
    private final Tensor[] inputs;
    private final Tensor[] outputs;
    private final double[] scalars;
    private final long[][] ints;

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
        this.outputs = outputs;
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
        return outputs.length;
    }

    /** Returns an output to fill. */
    public Tensor output(int index) {
        return outputs[index];
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

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(op).append('(');
        for (int i = 0; i < inputs.length; i++) {
            s.append(i == 0 ? "" : ", ").append(inputs[i] == null ? "None" : Arrays.toString(inputs[i].shape()));
        }
        return s.append(')').toString();
    }
}
