package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.KernelOps;

/** Reductions over dimensions (sum, mean, argmax) and softmax, with their gradients. */
final class Reductions {

    static final OpDef SUM = Ops.kernel(KernelOps.SUM);
    static final OpDef MEAN = Ops.kernel(KernelOps.MEAN);
    static final OpDef ARGMAX = Ops.kernel(KernelOps.ARGMAX);
    static final OpDef SOFTMAX = Ops.composite("aten::softmax");
    static final OpDef SOFTMAX_K = Ops.kernel(KernelOps.SOFTMAX);
    static final OpDef LOG_SOFTMAX = Ops.composite("aten::log_softmax");
    static final OpDef LOG_SOFTMAX_K = Ops.kernel(KernelOps.LOG_SOFTMAX);
    static final OpDef SOFTMAX_BACKWARD = Ops.kernel(KernelOps.SOFTMAX_BACKWARD_DATA);
    static final OpDef LOG_SOFTMAX_BACKWARD = Ops.kernel(KernelOps.LOG_SOFTMAX_BACKWARD_DATA);

    private Reductions() {
    }

    /** Sorted, distinct, normalised dims; all of them when {@code dims} is null. */
    private static int[] dims(String op, int[] dims, int rank) {
        if (dims == null || dims.length == 0) {
            // as in torch, an empty dim list reduces every dimension
            int[] all = new int[rank];
            for (int i = 0; i < rank; i++) {
                all[i] = i;
            }
            return all;
        }
        int[] d = new int[dims.length];
        for (int i = 0; i < dims.length; i++) {
            d[i] = Shapes.dim(op, dims[i], rank);
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

    private static int[] reducedShape(int[] sizes, int[] dims, boolean keepDim) {
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

    static Tensor sum(Tensor t, int[] dimsOrNull, boolean keepDim, boolean mean) {
        OpDef op = mean ? MEAN : SUM;
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(op, seq, 1, t, null, null, 0, dimsOrNull == null ? 0 : 2);
        try {
            Exec.requireFloat(op.name(), t);
            int[] dims = dims(op.name(), dimsOrNull, t.dim());
            int[] shape = reducedShape(t.sizes, dims, keepDim);
            Tensor out = Exec.empty(t.device(), DType.FLOAT32, shape);
            long[] dimList = new long[dims.length];
            int count = 1;
            for (int i = 0; i < dims.length; i++) {
                dimList[i] = dims[i];
                count *= t.sizes[dims[i]];
            }
            Exec.run(op, t.device(), new Tensor[] {t}, new Tensor[] {out}, null,
                    new long[][] {dimList, {keepDim ? 1 : 0}});
            if (grad) {
                int[] in = t.sizes;
                int n = count;
                String node = (mean ? "MeanBackward" : "SumBackward") + (dimsOrNull == null ? "0" : "1");
                Autograd.record(out, seq, node, g -> {
                    Tensor x = keepDim ? g : g.reshape(Shapes.toLongs(reducedShape(in, dims, true)));
                    if (mean) {
                        x = x.div(n);
                    }
                    return new Tensor[] {x.expand(Shapes.toLongs(in))};
                }, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor argmax(Tensor t, int dim, boolean keepDim) {
        CallFrame f = CallFrame.begin(ARGMAX, -1, 1, t, null, null, 0, 2);
        try {
            Exec.requireFloat(ARGMAX.name(), t);
            int d = Shapes.dim(ARGMAX.name(), dim, t.dim());
            if (t.dim() > 0 && t.sizes[d] == 0) {
                throw new IllegalArgumentException("aten::argmax: dimension " + dim + " of " + Exec.describe(t)
                        + " is empty");
            }
            int[] shape = reducedShape(t.sizes, new int[] {d}, keepDim);
            Tensor out = Exec.empty(t.device(), DType.INT64, shape);
            Exec.run(ARGMAX, t.device(), new Tensor[] {t}, new Tensor[] {out}, null,
                    new long[][] {{d}, {keepDim ? 1 : 0}});
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor softmax(Tensor t, int dim, boolean log) {
        CallFrame outer = CallFrame.begin(log ? LOG_SOFTMAX : SOFTMAX, -1, 1, t, null, null, 0, 1);
        try {
            OpDef op = log ? LOG_SOFTMAX_K : SOFTMAX_K;
            Exec.requireFloat(op.name(), t);
            int d = Shapes.dim(op.name(), dim, t.dim());
            boolean grad = Autograd.needs(t);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(op, seq, 1, t, null, null, 0, 1);
            try {
                Tensor out = Exec.empty(t.device(), DType.FLOAT32, t.sizes);
                Exec.run(op, t.device(), new Tensor[] {t}, new Tensor[] {out}, null, new long[][] {{d}});
                if (grad) {
                    Autograd.Saved y = new Autograd.Saved(out);
                    String node = log ? "LogSoftmaxBackward0" : "SoftmaxBackward0";
                    OpDef back = log ? LOG_SOFTMAX_BACKWARD : SOFTMAX_BACKWARD;
                    Autograd.record(out, seq, node, g -> new Tensor[] {softmaxBackward(back, g, y.get(node), d)},
                            t);
                }
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }

    private static Tensor softmaxBackward(OpDef op, Tensor grad, Tensor output, int dim) {
        return Exec.gradient(op, grad.sizes, 2, new Tensor[] {grad, output}, null, new long[][] {{dim}});
    }
}
