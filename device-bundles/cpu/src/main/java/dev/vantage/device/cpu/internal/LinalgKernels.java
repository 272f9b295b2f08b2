package dev.vantage.device.cpu.internal;

import java.util.Arrays;
import java.util.function.Supplier;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Matrix products: {@code mm}, {@code addmm} and {@code bmm} on the blocked, multi-threaded {@link MatmulKernel}.
 * Strided and transposed operands are first packed into row-major arrays, as BLAS packs its panels; dense ones are
 * used in place. Stateless; the kernel is looked up per call, so products follow the backend's pool.
 */
final class LinalgKernels {

    private LinalgKernels() {
    }

    static void register(KernelRegistry r, Supplier<MatmulKernel> matmul) {
        r.register(KernelOps.MM, c -> mm(c, matmul.get()));
        r.register(KernelOps.ADDMM, c -> addmm(c, matmul.get()));
        r.register(KernelOps.BMM, c -> bmm(c, matmul.get()));
    }

    private static IllegalArgumentException cannotMultiply(KernelCall c, Tensor a, Tensor b) {
        return new IllegalArgumentException(c.op() + ": shapes " + Strided.describe(a) + " and "
                + Strided.describe(b) + " cannot be multiplied into " + Strided.describe(c.output(0)));
    }

    private static void mm(KernelCall c, MatmulKernel matmul) {
        Tensor a = c.input(0);
        Tensor b = c.input(1);
        Tensor out = c.output(0);
        int[] shape = productShape(c, a, b);
        float[] o = Strided.target(c.op(), out);
        matmul.multiply(Strided.packed(c.op(), a), Strided.packed(c.op(), b), o, shape[0], shape[1], shape[2]);
        Strided.store(o, out);
    }

    /** {@code beta * bias + alpha * a @ b}; with beta 0 the bias is not read, so NaN in it does not leak, as torch. */
    private static void addmm(KernelCall c, MatmulKernel matmul) {
        String op = c.op();
        Tensor bias = c.input(0);
        Tensor a = c.input(1);
        Tensor b = c.input(2);
        Tensor out = c.output(0);
        int[] shape = productShape(c, a, b);
        int m = shape[0];
        int n = shape[2];
        float beta = (float) c.scalar(0);
        float alpha = (float) c.scalar(1);
        float[] o = Strided.target(op, out);
        matmul.multiply(Strided.packed(op, a), Strided.packed(op, b), o, m, shape[1], n);
        if (beta == 0) {
            if (alpha != 1) {
                for (int i = 0; i < m * n; i++) {
                    o[i] *= alpha;
                }
            }
        } else {
            float[] x = Strided.floats(op, bias);
            int[] sizes = {m, n};
            Strided s = Strided.over(sizes, new int[][] {{n, 1}, Strided.broadcastStrides(op, bias, sizes)},
                    new int[] {0, bias.storageOffset()});
            int os = s.step(0);
            int xs = s.step(1);
            s.forEach((at, len) -> {
                for (int i = 0, oi = at[0], xi = at[1]; i < len; i++, oi += os, xi += xs) {
                    o[oi] = beta * x[xi] + alpha * o[oi];
                }
            });
        }
        Strided.store(o, out);
    }

    /** {@code [m, k] x [k, n] -> [m, n]}: checks the shapes and returns {m, k, n}. */
    private static int[] productShape(KernelCall c, Tensor a, Tensor b) {
        if (a.dim() != 2 || b.dim() != 2 || a.size(1) != b.size(0)) {
            throw cannotMultiply(c, a, b);
        }
        int[] shape = {a.size(0), a.size(1), b.size(1)};
        if (!Arrays.equals(c.output(0).sizes(), new int[] {shape[0], shape[2]})) {
            throw cannotMultiply(c, a, b);
        }
        return shape;
    }

    private static void bmm(KernelCall c, MatmulKernel matmul) {
        String op = c.op();
        Tensor a = c.input(0);
        Tensor b = c.input(1);
        Tensor out = c.output(0);
        if (a.dim() != 3 || b.dim() != 3 || a.size(0) != b.size(0) || a.size(2) != b.size(1)
                || !Arrays.equals(out.sizes(), new int[] {a.size(0), a.size(1), b.size(2)})) {
            throw cannotMultiply(c, a, b);
        }
        float[] o = Strided.target(op, out);
        matmul.multiplyBatched(Strided.packed(op, a), Strided.packed(op, b), o, a.size(0), a.size(1), a.size(2),
                b.size(2));
        Strided.store(o, out);
    }
}
