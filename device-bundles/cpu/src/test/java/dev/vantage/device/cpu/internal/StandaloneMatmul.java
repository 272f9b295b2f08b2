package dev.vantage.device.cpu.internal;

import java.util.concurrent.ForkJoinPool;

/**
 * The CPU bundle's blocked matmul kernel on a plain class path: a test fixture the bundle publishes in its test jar,
 * for the benchmarks, which reach no class of the bundle's {@code internal} package.
 */
public final class StandaloneMatmul {

    private final MatmulKernel kernel;

    /** A kernel that splits its work over {@code pool}, or runs on the caller's thread when it is null. */
    public StandaloneMatmul(ForkJoinPool pool) {
        this.kernel = new MatmulKernel(pool);
    }

    /** {@code c = a · b} for row-major {@code a} (m × k) and {@code b} (k × n). */
    public void multiply(float[] a, float[] b, float[] c, int m, int k, int n) {
        kernel.multiply(a, b, c, m, k, n);
    }
}
