package dev.vantage.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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
import dev.vantage.device.onnxruntime.internal.StandaloneOrt;

/**
 * An application's own {@code OrtSession.run} (LangChain4j's quantized all-MiniLM-L6-v2, batch 1, {@code seq}
 * tokens, one intra-op thread), in a JVM with or without the Vantage agent: the application's code, which never
 * heard of Vantage. {@code profiling=ort} turns ONNX Runtime's own profiling on for the application's session.
 * {@code agent} says which JVM this fork is meant to be ({@code none}, {@code loaded}: the agent with no capture,
 * {@code capturing}: the agent's capture at start-up), and the set-up refuses a fork that is not, so that a
 * mistaken command line cannot measure the wrong thing (a capture is shown by the trace it writes). The JVM arguments come from {@link AgentOverhead}, which
 * runs the four configurations side by side; this class alone runs the plain one.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AgentOrtRun {

    @Param({"none"})
    public String agent;

    @Param({"off"})
    public String profiling;

    @Param({"32"})
    public int seq;

    private Path dir;
    private OrtSession session;
    private Map<String, OnnxTensor> inputs;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions o = OrtServedThroughput.options()) {
            if (profiling.equals("ort")) {
                dir = Files.createTempDirectory("agent-bench-ort");
                o.enableProfiling(dir.resolve("app").toString());
            } else if (!profiling.equals("off")) {
                throw new IllegalArgumentException("profiling=" + profiling + ": expected off or ort");
            }
            session = env.createSession(OrtServedThroughput.model().toString(), o);
        }
        inputs = StandaloneOrt.inputs(env, session, 1, seq);
        // the first run: with a capture at start-up it waits for the platform to boot
        run();
        String state = System.getProperty("vantage.agent");
        boolean fits = switch (agent) {
            case "none" -> state == null;
            case "loaded" -> "loaded".equals(state);
            // the hooks the first run waited for are in before the agent says "ready"; the capture itself is shown
            // by its trace, which AgentOverhead reads back
            case "capturing" -> "loaded".equals(state) || "ready".equals(state);
            default -> throw new IllegalArgumentException("agent=" + agent + ": expected none, loaded or capturing");
        };
        if (!fits) {
            throw new IllegalStateException("agent=" + agent + " but the JVM's agent is " + state);
        }
    }

    @Benchmark
    public long run() throws Exception {
        try (OrtSession.Result r = session.run(inputs)) {
            return r.size();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        inputs.values().forEach(OnnxTensor::close);
        session.close();
        if (dir != null) {
            deleteTree(dir);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
