package dev.vantage.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

import dev.vantage.device.kit.ClockCalibration;
import dev.vantage.device.onnxruntime.internal.StandaloneOrt;

/**
 * What a window does with ONNX Runtime's profile at stop: read the file ONNX Runtime wrote (a real one: {@code runs}
 * runs of LangChain4j's quantized all-MiniLM-L6-v2 at batch 1, 8 tokens, 162 nodes a run, about a kilobyte of JSON
 * per node) and convert every event into device activities on the host clock, linked to their runs
 * ({@code readAndConvert}); and the read alone ({@code read}), with the trace engine's reader (Jackson's streaming
 * parser, one thread). The file is made once per trial, untimed. Divide the
 * number of node events (printed at setup) by the time for node events per second; the goal is at least 1,000,000.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar OrtStopToTrace}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class OrtStopToTrace {

    @Param({"1000"})
    public int runs;

    private Path dir;
    private StandaloneOrt.ProfileFile profile;
    private List<?> recorded;
    private ClockCalibration clock;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("ort-stop");
        profile = StandaloneOrt.profile(OrtServedThroughput.model(), dir, runs, 1, 8);
        clock = StandaloneOrt.clock();
        recorded = StandaloneOrt.runsOf(profile, clock);
        System.out.printf("%n%s: %d node events, %d runs, %,d bytes%n", profile.file().getFileName(),
                profile.nodes(), recorded.size(), Files.size(profile.file()));
    }

    @Benchmark
    public int readAndConvert() throws Exception {
        return StandaloneOrt.readAndConvert(profile, recorded, clock);
    }

    @Benchmark
    public int read() throws Exception {
        return StandaloneOrt.read(profile.file());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        Files.deleteIfExists(profile.file());
        Files.deleteIfExists(dir);
    }
}
