package dev.vantage.benchmarks;

import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.vantage.device.cpu.internal.StandaloneMatmul;

/**
 * The CPU device's matmul against a naive triple loop, on square float32 matrices, in the same run. GFLOP/s is
 * {@code 2·size³ / time}. The blocked kernel uses a fork/join pool sized to the cores, as the CPU bundle does.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar MatmulThroughput}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MatmulThroughput {

    @Param({"256", "512", "1024"})
    public int size;

    @Param({"blocked", "naive"})
    public String kernel;

    private float[] a;
    private float[] b;
    private float[] c;
    private ForkJoinPool pool;
    private StandaloneMatmul blocked;

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(42);
        a = new float[size * size];
        b = new float[size * size];
        c = new float[size * size];
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) r.nextDouble();
            b[i] = (float) r.nextDouble();
        }
        pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors());
        blocked = new StandaloneMatmul(pool);
    }

    @TearDown
    public void tearDown() {
        pool.shutdown();
    }

    @Benchmark
    public float[] multiply() {
        if (kernel.equals("blocked")) {
            blocked.multiply(a, b, c, size, size, size);
        } else {
            naive(a, b, c, size);
        }
        return c;
    }

    /** The textbook i-j-p loop: B is read down its columns. */
    static void naive(float[] a, float[] b, float[] c, int n) {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float sum = 0;
                for (int p = 0; p < n; p++) {
                    sum += a[i * n + p] * b[p * n + j];
                }
                c[i * n + j] = sum;
            }
        }
    }
}
