package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.FloatStorage;

/** Host kernels over contiguous float32 tensors. Stateless and thread-safe. */
final class CpuKernels {

    private CpuKernels() {
    }

    static Tensor add(HostAllocator memory, Tensor a, Tensor b) {
        float[] x = a.storage().array();
        float[] y = sameShape("aten::add", a, b).storage().array();
        FloatStorage storage = memory.floats(x.length);
        float[] out = storage.array();
        for (int i = 0; i < out.length; i++) {
            out[i] = x[i] + y[i];
        }
        return Tensor.of(storage, a.shape());
    }

    static Tensor mul(HostAllocator memory, Tensor a, Tensor b) {
        float[] x = a.storage().array();
        float[] y = sameShape("aten::mul", a, b).storage().array();
        FloatStorage storage = memory.floats(x.length);
        float[] out = storage.array();
        for (int i = 0; i < out.length; i++) {
            out[i] = x[i] * y[i];
        }
        return Tensor.of(storage, a.shape());
    }

    /** {@code [m, k] x [k, n]} with the blocked, multi-threaded kernel. */
    static Tensor matmul(HostAllocator memory, MatmulKernel kernel, Tensor a, Tensor b) {
        if (a.dim() != 2 || b.dim() != 2 || a.size(1) != b.size(0)) {
            throw new IllegalArgumentException("aten::matmul: shapes " + Arrays.toString(a.shape()) + " and "
                    + Arrays.toString(b.shape()) + " cannot be multiplied (on " + a.device() + ")");
        }
        int m = (int) a.size(0);
        int k = (int) a.size(1);
        int n = (int) b.size(1);
        FloatStorage out = memory.floats(m * n);
        kernel.multiply(a.storage().array(), b.storage().array(), out.array(), m, k, n);
        return Tensor.of(out, m, n);
    }

    /** Sums in double precision, so that long reductions do not lose the small values. */
    static Tensor sum(HostAllocator memory, Tensor a) {
        double total = 0;
        for (float v : a.storage().array()) {
            total += v;
        }
        FloatStorage out = memory.floats(1);
        out.array()[0] = (float) total;
        return Tensor.of(out);
    }

    private static Tensor sameShape(String op, Tensor a, Tensor b) {
        if (!Arrays.equals(a.shape(), b.shape())) {
            throw new IllegalArgumentException(op + ": shapes " + Arrays.toString(a.shape()) + " and "
                    + Arrays.toString(b.shape()) + " differ (on " + a.device() + ")");
        }
        return b;
    }
}
