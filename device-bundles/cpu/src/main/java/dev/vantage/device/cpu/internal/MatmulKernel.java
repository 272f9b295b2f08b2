package dev.vantage.device.cpu.internal;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.function.IntConsumer;

/**
 * Single-precision matrix multiply {@code C[m,n] = A[m,k] x B[k,n]} on row-major arrays, blocked for the caches
 * and split over a fork/join pool by bands of rows.
 *
 * <p>Design: each task computes a band of C's rows. Within it, the k dimension is cut into {@link #K_BLOCK}-wide
 * slices and the n dimension into {@link #N_BLOCK}-wide slices, so the slice of B in use stays in cache, and four
 * rows of A are combined per pass so that every element of B loaded feeds four multiply-adds. The innermost loop
 * runs along contiguous rows of B and C, which the JIT vectorises. Small products run on the caller's thread.
 * Batched products and other work split by item ({@link #parallelFor}) share the pool. Thread-safe: tasks write
 * disjoint rows of C.
 */
public final class MatmulKernel {

    static final int K_BLOCK = 128;
    static final int N_BLOCK = 512;
    /** Below this many multiply-adds the product runs on the calling thread. */
    static final long PARALLEL_THRESHOLD = 1L << 18;

    private static final MatmulKernel SERIAL = new MatmulKernel(null);

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
        multiply(a, 0, b, 0, c, 0, m, k, n);
    }

    /**
     * Computes {@code c = a x b} with each matrix starting at an offset in its array; {@code c} is overwritten.
     *
     * @throws IllegalArgumentException if an array is shorter than its offset and shape need
     */
    public void multiply(float[] a, int aOff, float[] b, int bOff, float[] c, int cOff, int m, int k, int n) {
        check(a, aOff, b, bOff, c, cOff, 1, m, k, n);
        long work = (long) m * k * n;
        if (pool == null || work < PARALLEL_THRESHOLD || m < 8) {
            Arrays.fill(c, cOff, cOff + m * n, 0f);
            band(a, aOff, b, bOff, c, cOff, 0, m, k, n);
            return;
        }
        int bands = Math.min(m / 4, pool.getParallelism() * 4);
        int rowsPerBand = ((m + bands - 1) / bands + 3) & ~3;
        pool.invoke(new Bands(a, aOff, b, bOff, c, cOff, k, n, 0, m, rowsPerBand));
    }

    /**
     * Computes {@code batches} products of row-major matrices stored one after another: {@code c[i] = a[i] x b[i]}.
     * Small matrices run a batch per task, large ones one batch after another with their rows split.
     *
     * @throws IllegalArgumentException if an array is shorter than the shapes need
     */
    public void multiplyBatched(float[] a, float[] b, float[] c, int batches, int m, int k, int n) {
        check(a, 0, b, 0, c, 0, batches, m, k, n);
        long work = (long) m * k * n;
        if (pool != null && (work < PARALLEL_THRESHOLD || m < 8)) {
            parallelFor(batches, work, i -> SERIAL.multiply(a, i * m * k, b, i * k * n, c, i * m * n, m, k, n));
            return;
        }
        for (int i = 0; i < batches; i++) {
            multiply(a, i * m * k, b, i * k * n, c, i * m * n, m, k, n);
        }
    }

    /**
     * Runs {@code body} for every index in {@code [0, count)}, split over the pool when the work is worth it; each
     * index runs exactly once, and this returns when all have. Exceptions propagate to the caller.
     *
     * @param workEach about how many multiply-adds one index costs
     */
    public void parallelFor(int count, long workEach, IntConsumer body) {
        if (pool == null || count < 2 || workEach * count < PARALLEL_THRESHOLD) {
            for (int i = 0; i < count; i++) {
                body.accept(i);
            }
            return;
        }
        pool.invoke(new Range(body, 0, count));
    }

    /** A serial kernel for work already split over the pool. */
    static MatmulKernel serial() {
        return SERIAL;
    }

    private static void check(float[] a, int aOff, float[] b, int bOff, float[] c, int cOff, int batches, int m,
            int k, int n) {
        if (a.length < aOff + (long) batches * m * k || b.length < bOff + (long) batches * k * n
                || c.length < cOff + (long) batches * m * n) {
            throw new IllegalArgumentException("arrays too short for " + (batches == 1 ? "" : batches + " x ")
                    + "[" + m + ", " + k + "] x [" + k + ", " + n + "]");
        }
    }

    /** Splits an index range in halves down to single indices. */
    private static final class Range extends RecursiveAction {
        private final IntConsumer body;
        private final int from;
        private final int to;

        Range(IntConsumer body, int from, int to) {
            this.body = body;
            this.from = from;
            this.to = to;
        }

        @Override
        protected void compute() {
            if (to - from == 1) {
                body.accept(from);
                return;
            }
            int mid = (from + to) >>> 1;
            invokeAll(new Range(body, from, mid), new Range(body, mid, to));
        }
    }

    /** Splits rows in halves until a band is small enough, then computes it. */
    private static final class Bands extends RecursiveAction {
        private final float[] a;
        private final int aOff;
        private final float[] b;
        private final int bOff;
        private final float[] c;
        private final int cOff;
        private final int k;
        private final int n;
        private final int from;
        private final int to;
        private final int grain;

        Bands(float[] a, int aOff, float[] b, int bOff, float[] c, int cOff, int k, int n, int from, int to,
                int grain) {
            this.a = a;
            this.aOff = aOff;
            this.b = b;
            this.bOff = bOff;
            this.c = c;
            this.cOff = cOff;
            this.k = k;
            this.n = n;
            this.from = from;
            this.to = to;
            this.grain = grain;
        }

        @Override
        protected void compute() {
            int mid = (from + (to - from) / 2 + 3) & ~3;
            if (to - from <= grain || mid <= from || mid >= to) {
                Arrays.fill(c, cOff + from * n, cOff + to * n, 0f);
                band(a, aOff, b, bOff, c, cOff, from, to, k, n);
                return;
            }
            invokeAll(new Bands(a, aOff, b, bOff, c, cOff, k, n, from, mid, grain),
                    new Bands(a, aOff, b, bOff, c, cOff, k, n, mid, to, grain));
        }
    }

    /** Adds rows {@code from..to} of A x B into C, blocked over k and n, four rows of A at a time. */
    static void band(float[] a, int aOff, float[] b, int bOff, float[] c, int cOff, int from, int to, int k,
            int n) {
        for (int kk = 0; kk < k; kk += K_BLOCK) {
            int kEnd = Math.min(kk + K_BLOCK, k);
            for (int jj = 0; jj < n; jj += N_BLOCK) {
                int jEnd = Math.min(jj + N_BLOCK, n);
                int i = from;
                for (; i + 3 < to; i += 4) {
                    int c0 = cOff + i * n;
                    int c1 = c0 + n;
                    int c2 = c1 + n;
                    int c3 = c2 + n;
                    for (int p = kk; p < kEnd; p++) {
                        int aAt = aOff + i * k + p;
                        float a0 = a[aAt];
                        float a1 = a[aAt + k];
                        float a2 = a[aAt + 2 * k];
                        float a3 = a[aAt + 3 * k];
                        int bRow = bOff + p * n;
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
                    int cRow = cOff + i * n;
                    for (int p = kk; p < kEnd; p++) {
                        float av = a[aOff + i * k + p];
                        int bRow = bOff + p * n;
                        for (int j = jj; j < jEnd; j++) {
                            c[cRow + j] += av * b[bRow + j];
                        }
                    }
                }
            }
        }
    }
}
