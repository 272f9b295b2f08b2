package dev.vantage.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.vantage.device.cpu.host.CpuHost;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.spi.Backends;

/**
 * The throughput of a served workload with no capture running, against the same workload on a platform without
 * the profiler core: one step of {@code vantage serve --workload parallel-infer --threads 4} (four threads each
 * classifying a batch of 32 with the MLP, on the CPU device's real kernels), then the step mark. {@code none}: no
 * profiler core, no on-demand profiler, nothing marks the step; {@code idle}: the profiler core and the on-demand
 * profiler active (its MBean registered), no capture, every step marked, as a served platform runs between
 * captures. Run: {@code java -jar benchmarks/target/benchmarks.jar ServedSteps}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(value = 3)
public class ServedSteps {

    private static final int THREADS = 4;
    private static final int BATCH = 32;

    @Param({"none", "idle"})
    public String mode;

    private CpuHost host;
    private StandaloneProfiler core;
    private OnDemandProfiler onDemand;
    private Module model;
    private Tensor[] batches;
    private ExecutorService pool;

    @Setup(Level.Trial)
    public void setUp() {
        host = CpuHost.open();
        Backends.install(host.backend(), "device-cpu", "bench");
        if (mode.equals("idle")) {
            core = new StandaloneProfiler(32_000_000L);
            onDemand = core.onDemand();
        }
        model = new Sequential(new Linear(784, 256, true, 1), Layers.relu(), new Linear(256, 128, true, 2),
                Layers.relu(), new Linear(128, 10, true, 3));
        model.train(false);
        SplittableRandom r = new SplittableRandom(7);
        batches = new Tensor[THREADS];
        for (int t = 0; t < THREADS; t++) {
            float[] pixels = new float[BATCH * 784];
            for (int i = 0; i < pixels.length; i++) {
                pixels[i] = (float) r.nextDouble();
            }
            batches[t] = Tensor.of(pixels, BATCH, 784);
        }
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pool.shutdownNow();
        if (core != null) {
            core.close();
        }
        Backends.uninstallAll();
        host.close();
    }

    @Benchmark
    public long step() throws Exception {
        List<Future<Long>> results = new ArrayList<>(THREADS);
        for (int t = 0; t < THREADS; t++) {
            Tensor images = batches[t];
            results.add(pool.submit(() -> {
                try (GradMode.Scope off = GradMode.disabled()) {
                    long[] classes = model.forward(images).argmax(1, false).toLongArray();
                    return classes[0] + classes[classes.length - 1];
                }
            }));
        }
        long sum = 0;
        for (Future<Long> f : results) {
            sum += f.get();
        }
        if (onDemand != null) {
            onDemand.step();
        }
        return sum;
    }
}
