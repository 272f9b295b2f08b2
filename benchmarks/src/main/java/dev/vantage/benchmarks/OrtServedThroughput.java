package dev.vantage.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
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

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.device.onnxruntime.internal.StandaloneOrt;
import dev.vantage.profiler.core.internal.StandaloneProfiler;

/**
 * A served model with no profile active: runs per second of LangChain4j's quantized all-MiniLM-L6-v2 (batch 1,
 * {@code seq} tokens, one intra-op thread) on ONNX Runtime's own session with profiling off ({@code ort}) and
 * through a {@link ProfiledSession} with the profiler core and its on-demand profiler running idle, as a served
 * model runs in the platform ({@code vantage}). The goal: within noise of each other. Forks alternate the two, so
 * the noise between forks shows. Run:
 * {@code java -jar benchmarks/target/benchmarks.jar OrtServedThroughput -f 4}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class OrtServedThroughput {

    @Param({"ort", "vantage"})
    public String mode;

    @Param({"32"})
    public int seq;

    private StandaloneOrt.Device runtime;
    private StandaloneProfiler core;
    private OrtSession plain;
    private ProfiledSession profiled;
    private Map<String, OnnxTensor> inputs;
    private Path dir;

    static Path model() {
        return Path.of(System.getProperty("vantage.bench.models", "benchmarks/target/models"),
                "all-minilm-l6-v2-q.onnx");
    }

    /**
     * The benchmarks' session options: one intra-op thread, so that a run's time does not depend on how busy the
     * machine's other core is (ONNX Runtime's pool threads spin while they wait).
     */
    static OrtSession.SessionOptions options() throws ai.onnxruntime.OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setIntraOpNumThreads(1);
        return o;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        if (mode.equals("ort")) {
            try (OrtSession.SessionOptions o = options()) {
                plain = env.createSession(model().toString(), o);
            }
            inputs = StandaloneOrt.inputs(env, plain, 1, seq);
        } else {
            core = new StandaloneProfiler(32_000_000L);
            core.onDemand();
            dir = Files.createTempDirectory("ort-bench");
            runtime = StandaloneOrt.device(dir);
            core.addSource(runtime.source());
            profiled = runtime.profiling().open(model(), OrtServedThroughput::options);
            inputs = StandaloneOrt.inputs(env, profiled.session(), 1, seq);
        }
    }

    @Benchmark
    public long run() throws Exception {
        try (OrtSession.Result r = plain != null ? plain.run(inputs) : profiled.run(inputs)) {
            return r.size();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        inputs.values().forEach(OnnxTensor::close);
        if (plain != null) {
            plain.close();
        } else {
            profiled.close();
            runtime.close();
            core.close();
            Files.deleteIfExists(dir);
        }
    }
}
