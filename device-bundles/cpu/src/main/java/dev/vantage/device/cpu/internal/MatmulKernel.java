package dev.vantage.device.cpu.internal;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * Single-precision matrix multiply {@code C[m,n] = A[m,k] x B[k,n]} on row-major arrays, blocked for the caches
 * and split over a fork/join pool by bands of rows.
 *
 * <p>Design: each task computes a band of C's rows. Within it, the k dimension is cut into {@link #K_BLOCK}-wide
 * slices and the n dimension into {@link #N_BLOCK}-wide slices, so the slice of B in use stays in cache, and four
 * rows of A are combined per pass so that every element of B loaded feeds four multiply-adds. The innermost loop
 * runs along contiguous rows of B and C, which the JIT vectorises. Small products run on the caller's thread.
 * Thread-safe: tasks write disjoint rows of C.
 */
public final class MatmulKernel {

    static final int K_BLOCK = 128;
    static final int N_BLOCK = 512;
    /** Below this many multiply-adds the product runs on the calling thread. */
    static final long PARALLEL_THRESHOLD = 1L << 18;

    private final ForkJoinPool pool;

    /**
     * @param pool the pool to split work over, or null to run every product on the calling thread
     */
    public MatmulKernel(ForkJoinPool pool) {
        this.pool = pool;
    }

    /**
     * Computes {@code c = a x b}; {@code c} is overwritten.
     *
     * @throws IllegalArgumentException if an array is shorter than its shape needs
     */
    public void multiply(float[] a, float[] b, float[] c, int m, int k, int n) {
        if (a.length < (long) m * k || b.length < (long) k * n || c.length < (long) m * n) {
            throw new IllegalArgumentException("arrays too short for [" + m + ", " + k + "] x [" + k + ", " + n
                    + "]");
        }
        java.util.Arrays.fill(c, 0, m * n, 0f);
        long work = (long) m * k * n;
        if (pool == null || work < PARALLEL_THRESHOLD || m < 8) {
            band(a, b, c, 0, m, k, n);
            return;
        }
        int bands = Math.min(m / 4, pool.getParallelism() * 4);
        int rowsPerBand = ((m + bands - 1) / bands + 3) & ~3;
        pool.invoke(new Bands(a, b, c, k, n, 0, m, rowsPerBand));
    }

    /** Splits rows in halves until a band is small enough, then computes it. */
    private static final class Bands extends RecursiveAction {
        private final float[] a;
        private final float[] b;
        private final float[] c;
        private final int k;
        private final int n;
        private final int from;
        private final int to;
        private final int grain;

        Bands(float[] a, float[] b, float[] c, int k, int n, int from, int to, int grain) {
            this.a = a;
            this.b = b;
            this.c = c;
            this.k = k;
            this.n = n;
            this.from = from;
            this.to = to;
            this.grain = grain;
        }

        @Override
        protected void compute() {
            if (to - from <= grain) {
                band(a, b, c, from, to, k, n);
                return;
            }
            int mid = (from + (to - from) / 2 + 3) & ~3;
            if (mid <= from || mid >= to) {
                band(a, b, c, from, to, k, n);
                return;
            }
            invokeAll(new Bands(a, b, c, k, n, from, mid, grain), new Bands(a, b, c, k, n, mid, to, grain));
        }
    }

    /** Rows {@code from..to} of C, blocked over k and n, four rows of A at a time. */
    static void band(float[] a, float[] b, float[] c, int from, int to, int k, int n) {
        for (int kk = 0; kk < k; kk += K_BLOCK) {
            int kEnd = Math.min(kk + K_BLOCK, k);
            for (int jj = 0; jj < n; jj += N_BLOCK) {
                int jEnd = Math.min(jj + N_BLOCK, n);
                int i = from;
                for (; i + 3 < to; i += 4) {
                    int c0 = i * n;
                    int c1 = c0 + n;
                    int c2 = c1 + n;
                    int c3 = c2 + n;
                    for (int p = kk; p < kEnd; p++) {
                        float a0 = a[i * k + p];
                        float a1 = a[(i + 1) * k + p];
                        float a2 = a[(i + 2) * k + p];
                        float a3 = a[(i + 3) * k + p];
                        int bRow = p * n;
                        for (int j = jj; j < jEnd; j++) {
                            float bv = b[bRow + j];
                            c[c0 + j] += a0 * bv;
                            c[c1 + j] += a1 * bv;
                            c[c2 + j] += a2 * bv;
                            c[c3 + j] += a3 * bv;
                        }
                    }
                }
                for (; i < to; i++) {
                    int cRow = i * n;
                    for (int p = kk; p < kEnd; p++) {
                        float av = a[i * k + p];
                        int bRow = p * n;
                        for (int j = jj; j < jEnd; j++) {
                            c[cRow + j] += av * b[bRow + j];
                        }
                    }
                }
            }
        }
    }
}
