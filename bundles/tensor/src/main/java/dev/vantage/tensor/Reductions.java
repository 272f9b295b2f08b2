package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.tensor.spi.KernelOps;

/**
 * Reductions over dimensions (sum, mean, argmax) and softmax, with their gradients. A reduction's kernel takes
 * {@code {dims, {keepDim}}}; its shape rule normalises the dims in place (sorted, distinct, all of them for none).
 */
final class Reductions {

    /** {@code sum} and {@code mean}, over every dimension or over some. */
    private static final class Sum extends Op {
        private final boolean mean;

        Sum(String kernel, boolean dims, String node) {
            super(Op.kernel(kernel).shows(1, 0, dims ? 2 : 0).backward(node));
            this.mean = kernel.equals(KernelOps.MEAN);
        }

        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor t = in[0];
            requireFloat(t);
            ints[0] = dims(name, ints[0], t.dim());
            return reducedShape(t.sizes, ints[0], ints[1][0] != 0);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            int[] in = n.size(0);
            long[] dims = n.ints(0);
            boolean keepDim = n.ints(1)[0] != 0;
            Tensor x = keepDim ? g : g.reshape(Shapes.toLongs(reducedShape(in, dims, true)));
            if (mean) {
                int count = 1;
                for (long d : dims) {
                    count *= in[(int) d];
                }
                x = x.div(count);
            }
            return grads(x.expand(Shapes.toLongs(in)));
        }
    }

    static final Op SUM = new Sum(KernelOps.SUM, false, "SumBackward0");
    static final Op SUM_DIMS = new Sum(KernelOps.SUM, true, "SumBackward1");
    static final Op MEAN = new Sum(KernelOps.MEAN, false, "MeanBackward0");
    static final Op MEAN_DIMS = new Sum(KernelOps.MEAN, true, "MeanBackward1");

    static final Op ARGMAX = new Op(Op.kernel(KernelOps.ARGMAX).shows(1, 0, 2).dtype(DType.INT64)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor t = in[0];
            requireFloat(t);
            int d = Shapes.dim(name, (int) ints[0][0], t.dim());
            if (t.dim() > 0 && t.sizes[d] == 0) {
                throw new IllegalArgumentException(name + ": dimension " + ints[0][0] + " of " + describe(t)
                        + " is empty");
            }
            ints[0][0] = d;
            return reducedShape(t.sizes, new long[] {d}, ints[1][0] != 0);
        }
    };

    /** {@code _softmax} and {@code _log_softmax}: the kernel along dimension {@code ints[0][0]}, normalised. */
    private static final class Softmax extends Op {
        private final Op gradient;

        Softmax(String kernel, String node, String gradient) {
            super(Op.kernel(kernel).shows(1, 0, 1).backward(node));
            this.gradient = new Op(Op.kernel(gradient).shows(2, 0, 1)) { };
        }

        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            requireFloat(in[0]);
            ints[0][0] = Shapes.dim(name, (int) ints[0][0], in[0].dim());
            return in[0].sizes;
        }

        @Override
        int saves(Tensor[] in) {
            return OUT0;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(gradient.call(new Tensor[] {g, n.output(0)}, null, new long[][] {n.ints(0)}, null));
        }
    }

    static final Op SOFTMAX_K = new Softmax(KernelOps.SOFTMAX, "SoftmaxBackward0", KernelOps.SOFTMAX_BACKWARD_DATA);
    static final Op LOG_SOFTMAX_K = new Softmax(KernelOps.LOG_SOFTMAX, "LogSoftmaxBackward0",
            KernelOps.LOG_SOFTMAX_BACKWARD_DATA);

    /** {@code softmax} and {@code log_softmax}: the kernel op inside, as torch shows them. */
    private static final class SoftmaxOf extends Op {
        private final Op kernelOp;

        SoftmaxOf(String name, Op kernelOp) {
            super(Op.composite(name).shows(1, 0, 1));
            this.kernelOp = kernelOp;
        }

        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return kernelOp.call(in, null, ints, null);
        }
    }

    static final Op SOFTMAX = new SoftmaxOf("aten::softmax", SOFTMAX_K);
    static final Op LOG_SOFTMAX = new SoftmaxOf("aten::log_softmax", LOG_SOFTMAX_K);

    private Reductions() {
    }

    /** Sorted, distinct, normalised dims; all of them when {@code dims} is null or empty, as in torch. */
    private static long[] dims(String op, long[] dims, int rank) {
        if (dims == null || dims.length == 0) {
            long[] all = new long[rank];
            for (int i = 0; i < rank; i++) {
                all[i] = i;
            }
            return all;
        }
        long[] d = new long[dims.length];
        for (int i = 0; i < dims.length; i++) {
            d[i] = Shapes.dim(op, (int) dims[i], rank);
        }
        Arrays.sort(d);
        for (int i = 1; i < d.length; i++) {
            if (d[i] == d[i - 1]) {
                throw new IllegalArgumentException(op + ": dimension " + d[i] + " appears twice in "
                        + Arrays.toString(dims));
            }
        }
        return d;
    }

    private static int[] reducedShape(int[] sizes, long[] dims, boolean keepDim) {
        int[] out = new int[keepDim ? sizes.length : sizes.length - dims.length];
        for (int i = 0, j = 0; i < sizes.length; i++) {
            boolean reduced = Arrays.binarySearch(dims, i) >= 0;
            if (keepDim) {
                out[i] = reduced ? 1 : sizes[i];
            } else if (!reduced) {
                out[j++] = sizes[i];
            }
        }
        return out;
    }

    /** The sum, or the mean, over some dims (all of them when null), as a new tensor. */
    static Tensor sum(Tensor t, int[] dimsOrNull, boolean keepDim, boolean mean) {
        Op op = dimsOrNull == null ? mean ? MEAN : SUM : mean ? MEAN_DIMS : SUM_DIMS;
        long[] dims = dimsOrNull == null ? null : Shapes.toLongs(dimsOrNull);
        return op.call(new Tensor[] {t}, null, new long[][] {dims, {keepDim ? 1 : 0}}, null);
    }

    static Tensor argmax(Tensor t, int dim, boolean keepDim) {
        return ARGMAX.call(new Tensor[] {t}, null, new long[][] {{dim}, {keepDim ? 1 : 0}}, null);
    }

    static Tensor softmax(Tensor t, int dim, boolean log) {
        return (log ? LOG_SOFTMAX : SOFTMAX).call(new Tensor[] {t}, null, new long[][] {{dim}}, null);
    }
}
