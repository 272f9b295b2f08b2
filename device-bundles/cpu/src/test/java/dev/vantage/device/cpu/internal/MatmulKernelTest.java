package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.junit.AfterClass;
import org.junit.Test;

/** The blocked kernel against a plain triple loop in double precision, on shapes that miss every block edge. */
public class MatmulKernelTest {

    private static final ForkJoinPool POOL = new ForkJoinPool(4);

    @AfterClass
    public static void shutdown() {
        POOL.shutdown();
    }

    private static float[] random(int n, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return x;
    }

    private static void check(MatmulKernel kernel, int m, int k, int n) {
        float[] a = random(m * k, 1);
        float[] b = random(k * n, 2);
        float[] c = random(m * n, 3);   // garbage that must be overwritten
        kernel.multiply(a, b, c, m, k, n);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double expected = 0;
                for (int p = 0; p < k; p++) {
                    expected += (double) a[i * k + p] * b[p * n + j];
                }
                assertEquals("c[" + i + "][" + j + "] of " + m + "x" + k + "x" + n, expected, c[i * n + j],
                        1e-4 * Math.sqrt(k));
            }
        }
    }

    @Test
    public void matchesTheTripleLoopOnOddShapes() {
        MatmulKernel serial = new MatmulKernel(null);
        check(serial, 1, 1, 1);
        check(serial, 3, 5, 7);
        check(serial, 37, 53, 29);
        check(serial, 130, 257, 515);
    }

    @Test
    public void theParallelSplitComputesTheSameProduct() {
        MatmulKernel parallel = new MatmulKernel(POOL);
        check(parallel, 301, 203, 149);
        check(parallel, 64, 64, 64);
        check(parallel, 9, 600, 300);
    }

    @Test
    public void batchedProductsMatchEachTripleLoop() {
        for (MatmulKernel kernel : new MatmulKernel[] {new MatmulKernel(null), new MatmulKernel(POOL)}) {
            // small matrices go a batch per task, large ones a batch at a time with rows split
            for (int[] s : new int[][] {{7, 5, 3, 6}, {3, 70, 60, 80}}) {
                int batches = s[0];
                int m = s[1];
                int k = s[2];
                int n = s[3];
                float[] a = random(batches * m * k, 4);
                float[] b = random(batches * k * n, 5);
                float[] c = random(batches * m * n, 6);
                kernel.multiplyBatched(a, b, c, batches, m, k, n);
                for (int q = 0; q < batches; q++) {
                    for (int i = 0; i < m; i++) {
                        for (int j = 0; j < n; j++) {
                            double expected = 0;
                            for (int p = 0; p < k; p++) {
                                expected += (double) a[(q * m + i) * k + p] * b[(q * k + p) * n + j];
                            }
                            assertEquals(expected, c[(q * m + i) * n + j], 1e-4 * Math.sqrt(k));
                        }
                    }
                }
            }
        }
    }

    @Test
    public void offsetsPickTheMatricesAndLeaveTheRestOfTheOutput() {
        float[] a = {9, 1, 2, 3, 4};         // [2, 2] from offset 1
        float[] b = {9, 9, 5, 6, 7, 8};      // [2, 2] from offset 2
        float[] c = {-1, 0, 0, 0, 0, -1};    // [2, 2] at offset 1
        new MatmulKernel(null).multiply(a, 1, b, 2, c, 1, 2, 2, 2);
        assertArrayEquals(new float[] {-1, 19, 22, 43, 50, -1}, c, 0);
    }

    @Test
    public void parallelForRunsEveryIndexExactlyOnce() {
        AtomicIntegerArray runs = new AtomicIntegerArray(1000);
        new MatmulKernel(POOL).parallelFor(1000, MatmulKernel.PARALLEL_THRESHOLD, runs::incrementAndGet);
        for (int i = 0; i < 1000; i++) {
            assertEquals("index " + i, 1, runs.get(i));
        }
    }

    @Test
    public void rejectsArraysTooShortForTheShape() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new MatmulKernel(null).multiply(new float[5], new float[6], new float[4], 2, 3, 2));
        assertEquals("arrays too short for [2, 3] x [3, 2]", e.getMessage());
    }
}
