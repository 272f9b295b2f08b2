package dev.vantage.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
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
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.core.internal.StandaloneProfiler;

/**
 * A step of LangChain4j's quantized all-MiniLM-L6-v2 (batch 1, {@code seq} tokens, one intra-op thread) while it
 * is profiled, side by side in one run: {@code ort-profiling} is ONNX Runtime's own profiler
 * ({@code enableProfiling}) on the session's runs; {@code vantage} is a step under a Vantage profile recording CPU
 * and ORT: the run through a {@link ProfiledSession} (to its profiling session, as {@code ort::run}) and the
 * profile's {@code step()}; {@code vantage-no-rotation} the same with profiling sessions that never hand over in an
 * iteration, to separate that background work; {@code plain} a run with no profiler, for scale. Every iteration
 * starts a fresh profiling session or profile window and ends it in its teardown, untimed (ONNX Runtime's own
 * profile stops at 1,000,000 events). The budget: {@code vantage} at most {@code ort-profiling} + 5 %. Run:
 * {@code java -jar benchmarks/target/benchmarks.jar OrtProfiledStep -f 3}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(3)
public class OrtProfiledStep {

    @Param({"plain", "ort-profiling", "vantage", "vantage-no-rotation"})
    public String mode;

    @Param({"32"})
    public int seq;

    private OrtEnvironment env;
    private Path dir;
    private OrtSession session;
    private StandaloneProfiler core;
    private StandaloneOrt.Device runtime;
    private ProfiledSession profiled;
    private Profile profile;
    private Map<String, OnnxTensor> inputs;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        env = OrtEnvironment.getEnvironment();
        dir = Files.createTempDirectory("ort-step");
        if (mode.startsWith("vantage")) {
            core = new StandaloneProfiler(32_000_000L);
            runtime = mode.equals("vantage-no-rotation") ? StandaloneOrt.device(dir, Integer.MAX_VALUE)
                    : StandaloneOrt.device(dir);
            core.addSource(runtime.source());
            profiled = runtime.profiling().open(OrtServedThroughput.model(), OrtServedThroughput::options);
            inputs = StandaloneOrt.inputs(env, profiled.session(), 1, seq);
        }
    }

    @Setup(Level.Iteration)
    public void begin() throws Exception {
        if (mode.startsWith("vantage")) {
            profile = core.profiler().profile().activities(Set.of(Activity.CPU, Activity.of("ORT")))
                    .recordShapes(true).start();
            return;
        }
        try (OrtSession.SessionOptions o = OrtServedThroughput.options()) {
            if (mode.equals("ort-profiling")) {
                o.enableProfiling(dir.resolve("ort").toString());
            }
            session = env.createSession(OrtServedThroughput.model().toString(), o);
        }
        if (inputs == null) {
            inputs = StandaloneOrt.inputs(env, session, 1, seq);
        }
    }

    @Benchmark
    public long step() throws Exception {
        if (profile != null) {
            try (OrtSession.Result r = profiled.run(inputs)) {
                profile.step();
                return r.size();
            }
        }
        try (OrtSession.Result r = session.run(inputs)) {
            return r.size();
        }
    }

    @TearDown(Level.Iteration)
    public void end() throws Exception {
        if (profile != null) {
            profile.stop();
            profile = null;
            return;
        }
        if (mode.equals("ort-profiling")) {
            Files.deleteIfExists(Path.of(session.endProfiling()));
        }
        session.close();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        inputs.values().forEach(OnnxTensor::close);
        if (profiled != null) {
            profiled.close();
            runtime.close();
            core.close();
        }
        Files.deleteIfExists(dir);
    }
}
