package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Reductions over dimensions ({@code sum}, {@code mean}, {@code argmax}) and the ops along one dimension that
 * reduce and then spread back: softmax, log-softmax and their gradients. Sums accumulate in double. Inputs may be
 * strided; each walk goes through the input in its own row-major order. Stateless.
 */
final class ReductionKernels {

    private ReductionKernels() {
    }

    static void register(KernelRegistry r) {
        r.register(KernelOps.SUM, c -> sum(c, false));
        r.register(KernelOps.MEAN, c -> sum(c, true));
        r.register(KernelOps.ARGMAX, ReductionKernels::argmax);
        r.register(KernelOps.SOFTMAX, c -> softmax(c, false));
        r.register(KernelOps.LOG_SOFTMAX, c -> softmax(c, true));
        r.register(KernelOps.SOFTMAX_BACKWARD_DATA, c -> softmaxBackward(c, false));
        r.register(KernelOps.LOG_SOFTMAX_BACKWARD_DATA, c -> softmaxBackward(c, true));
    }

    /** Accumulates every input element into its output slot, walking a double accumulator alongside the input. */
    private static void sum(KernelCall c, boolean mean) {
        String op = c.op();
        Tensor t = c.input(0);
        Tensor out = c.output(0);
        float[] x = Strided.floats(op, t);
        int[] sizes = t.sizes();
        int rank = sizes.length;
        boolean[] reduced = new boolean[Math.max(rank, 1)];
        for (long dim : c.ints(0)) {
            int d = Strided.dim(op, dim, rank);
            if (reduced[d]) {
                throw new IllegalArgumentException(op + ": dimension " + d + " appears twice in "
                        + Arrays.toString(c.ints(0)));
            }
            reduced[d] = true;
        }
        boolean keepDim = c.integer(1) != 0;
        int[] accStrides = new int[rank];
        int[] shape = new int[rank];
        int kept = 0;
        long count = 1;
        for (int d = rank - 1, stride = 1; d >= 0; d--) {
            if (reduced[d]) {
                count *= sizes[d];
            } else {
                accStrides[d] = stride;
                stride *= sizes[d];
            }
        }
        for (int d = 0; d < rank; d++) {
            if (!reduced[d] || keepDim) {
                shape[kept++] = reduced[d] ? 1 : sizes[d];
            }
        }
        Strided.requireShape(op, "output", out, Arrays.copyOf(shape, kept));
        double[] acc = new double[out.numel()];
        Strided s = Strided.over(sizes, new int[][] {accStrides, t.strides()}, new int[] {0, t.storageOffset()});
        int as = s.step(0);
        int xs = s.step(1);
        s.forEach((at, n) -> {
            if (as == 0) {
                double total = 0;
                for (int i = 0, xi = at[1]; i < n; i++, xi += xs) {
                    total += x[xi];
                }
                acc[at[0]] += total;
            } else {
                for (int i = 0, a = at[0], xi = at[1]; i < n; i++, a += as, xi += xs) {
                    acc[a] += x[xi];
                }
            }
        });
        float[] o = Strided.target(op, out);
        for (int i = 0; i < acc.length; i++) {
            o[i] = (float) (mean ? acc[i] / count : acc[i]);
        }
        Strided.store(o, out);
    }

    private static void argmax(KernelCall c) {
        String op = c.op();
        Tensor t = c.input(0);
        Tensor out = c.output(0);
        float[] x = Strided.floats(op, t);
        long[] o = Strided.longs(op, out);
        int rank = t.dim();
        int d = Strided.dim(op, c.integer(0), rank);
        if (rank == 0) {
            Strided.requireShape(op, "output", out);
            o[out.storageOffset()] = 0;
            return;
        }
        int[] sizes = t.sizes();
        int len = sizes[d];
        if (len == 0) {
            throw new IllegalArgumentException(op + ": dimension " + d + " of " + Strided.describe(t) + " is empty");
        }
        boolean keepDim = c.integer(1) != 0;
        int[] lines = sizes.clone();
        lines[d] = 1;
        int[] outStrides = new int[rank];
        int[] own = out.strides();
        if (keepDim) {
            Strided.requireShape(op, "output", out, lines);
            outStrides = own;
        } else {
            int[] shape = new int[rank - 1];
            for (int i = 0, j = 0; i < rank; i++) {
                if (i != d) {
                    shape[j] = sizes[i];
                    outStrides[i] = own[j++];
                }
            }
            Strided.requireShape(op, "output", out, shape);
        }
        int step = t.stride(d);
        Strided.over(lines, new int[][] {outStrides, t.strides()}, new int[] {out.storageOffset(),
            t.storageOffset()}).forEachElement(at -> {
                int xi = at[1];
                float best = x[xi];
                int index = 0;
                for (int j = 1; j < len && !Float.isNaN(best); j++) {
                    xi += step;
                    float v = x[xi];
                    if (v > best || Float.isNaN(v)) {   // NaN is the maximum, as in torch
                        best = v;
                        index = j;
                    }
                }
                o[at[0]] = index;
            });
    }

    /** Walks the lines along the call's dimension of same-shaped operands, output first. */
    private static Strided lines(KernelCall c, Tensor... operands) {
        String op = c.op();
        int[] sizes = operands[0].sizes();
        int rank = sizes.length;
        int d = Strided.dim(op, c.integer(0), rank);
        int[][] strides = new int[operands.length][];
        int[] offsets = new int[operands.length];
        for (int k = 0; k < operands.length; k++) {
            Strided.requireShape(op, k == 0 ? "output" : "input " + (k - 1), operands[k], sizes);
            strides[k] = operands[k].strides();
            offsets[k] = operands[k].storageOffset();
        }
        int[] lines = sizes.clone();
        if (rank > 0) {
            lines[d] = 1;
        }
        return Strided.over(lines, strides, offsets);
    }

    /** The length and per-operand stride along the call's dimension; a 0-d tensor is one line of one. */
    private static int length(KernelCall c, Tensor t) {
        return t.dim() == 0 ? 1 : t.size(Strided.dim(c.op(), c.integer(0), t.dim()));
    }

    private static int step(KernelCall c, Tensor t) {
        return t.dim() == 0 ? 0 : t.stride(Strided.dim(c.op(), c.integer(0), t.dim()));
    }

    /** Subtracts the line's maximum before exponentiating, so no exponent overflows. */
    private static void softmax(KernelCall c, boolean log) {
        String op = c.op();
        Tensor out = c.output(0);
        Tensor t = c.input(0);
        float[] o = Strided.floats(op, out);
        float[] x = Strided.floats(op, t);
        int len = length(c, t);
        int os = step(c, out);
        int xs = step(c, t);
        double[] e = new double[len];   // one line's exponentials; this call's own, lines run one at a time
        lines(c, out, t).forEachElement(at -> {
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0, xi = at[1]; j < len; j++, xi += xs) {
                max = Math.max(max, x[xi]);
            }
            double sum = 0;
            for (int j = 0, xi = at[1]; j < len; j++, xi += xs) {
                e[j] = Math.exp((double) x[xi] - max);
                sum += e[j];
            }
            if (log) {
                double logSum = Math.log(sum);
                for (int j = 0, xi = at[1], oi = at[0]; j < len; j++, xi += xs, oi += os) {
                    o[oi] = (float) ((double) x[xi] - max - logSum);   // x - max is exact in double
                }
            } else {
                for (int j = 0, oi = at[0]; j < len; j++, oi += os) {
                    o[oi] = (float) (e[j] / sum);
                }
            }
        });
    }

    /** softmax: {@code g_in = y * (g - sum(g * y))}; log-softmax: {@code g_in = g - exp(y) * sum(g)}. */
    private static void softmaxBackward(KernelCall c, boolean log) {
        String op = c.op();
        Tensor out = c.output(0);
        Tensor grad = c.input(0);
        Tensor y = c.input(1);
        float[] o = Strided.floats(op, out);
        float[] g = Strided.floats(op, grad);
        float[] v = Strided.floats(op, y);
        int len = length(c, out);
        int os = step(c, out);
        int gs = step(c, grad);
        int vs = step(c, y);
        lines(c, out, grad, y).forEachElement(at -> {
            double sum = 0;
            for (int j = 0, gi = at[1], vi = at[2]; j < len; j++, gi += gs, vi += vs) {
                sum += log ? g[gi] : (double) g[gi] * v[vi];
            }
            for (int j = 0, oi = at[0], gi = at[1], vi = at[2]; j < len; j++, oi += os, gi += gs, vi += vs) {
                o[oi] = log ? (float) (g[gi] - Math.exp(v[vi]) * sum) : (float) (v[vi] * (g[gi] - sum));
            }
        });
    }
}
