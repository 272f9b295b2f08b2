package dev.vantage.benchmarks;

import java.util.SplittableRandom;
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
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.optim.SGD;
import dev.vantage.tensor.spi.Backends;

/**
 * One training step of the {@code mlp-train} workload on the CPU device's real kernels: the body of its loop
 * ({@code workloads/internal/Training.run}) with its model (784-256-128-10 with ReLU and dropout, SGD with momentum
 * 0.9 and learning rate 0.05) and its default batch of 64, on one fixed batch: forward, cross entropy, zero_grad,
 * backward, the optimizer's step and the loss read back, inside a {@link TensorScope} that frees the step's tensors.
 * {@code none}: no profiler core; {@code cpu}: a profile recording every op with its input shapes, as
 * {@code vantage run --profile} records them. Each iteration records a fresh profile.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar MlpTrainStep -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3)
@State(Scope.Thread)
public class MlpTrainStep {

    private static final int BATCH = 64;
    private static final int PIXELS = 28 * 28;

    @Param({"none", "cpu"})
    public String mode;

    private CpuHost host;
    private StandaloneProfiler core;
    private Profile profile;
    private Module model;
    private SGD optimizer;
    private Tensor images;
    private Tensor labels;

    @Setup(Level.Trial)
    public void setUp() {
        host = CpuHost.open();
        Backends.install(host.backend(), "device-cpu", "bench");
        if (mode.equals("cpu")) {
            core = new StandaloneProfiler(64_000_000L);
        }
        long seed = 1;
        model = new Sequential(new Linear(PIXELS, 256, true, seed), Layers.relu(), Layers.dropout(0.1, seed + 10),
                new Linear(256, 128, true, seed + 20), Layers.relu(), new Linear(128, 10, true, seed + 30));
        model.train(true);
        optimizer = new SGD(model.parameters(), 0.05, 0.9, 0);
        SplittableRandom r = new SplittableRandom(7);
        float[] pixels = new float[BATCH * PIXELS];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = (float) r.nextDouble();
        }
        long[] classes = new long[BATCH];
        for (int i = 0; i < BATCH; i++) {
            classes[i] = r.nextInt(10);
        }
        images = TensorScope.escape(Tensor.of(pixels, BATCH, 1, 28, 28));
        labels = TensorScope.escape(Tensor.ofLongs(classes, BATCH));
    }

    @Setup(Level.Iteration)
    public void startProfile() {
        if (core != null) {
            profile = core.profiler().profile().recordShapes(true).start();
        }
    }

    @TearDown(Level.Iteration)
    public void stopProfile() {
        if (profile != null) {
            Recordings.stopChecked(profile);
            profile = null;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        optimizer.close();
        model.close();
        if (core != null) {
            core.close();
        }
        Backends.uninstallAll();
        host.close();
    }

    @Benchmark
    public float step() {
        try (TensorScope scope = TensorScope.open()) {
            Tensor rows = images.flatten(1);
            Tensor logits = model.forward(rows);
            rows.close();
            Tensor loss = Functional.crossEntropy(logits, labels);
            logits.close();
            optimizer.zeroGrad();
            loss.backward();
            optimizer.step();
            return loss.item();
        }
    }
}
