package dev.vantage.benchmarks;

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

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.core.internal.BenchProfiler;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.internal.BenchBackends;

import jdk.jfr.Event;
import jdk.jfr.Recording;

/**
 * What one dispatched op costs the profiler. The op is {@code aten::add} on 1-element tensors with a kernel that
 * returns its first input, so the figures are dispatch and recording alone, with nothing allocated by the kernel.
 * Modes, compared in one run:
 * <ul>
 *   <li>{@code none}: no profiler core at all;</li>
 *   <li>{@code idle}: the profiler core active, no profile recording (the fast path holds no hook);</li>
 *   <li>{@code cpu}: a profile recording every op (each iteration starts a fresh profile);</li>
 *   <li>{@code shapes}: the same, recording the two inputs' shapes and dtypes;</li>
 *   <li>{@code jfr}: no profiler; the op wrapped in a JDK Flight Recorder event with begin/commit, with a
 *       recording running that enables it without stack traces (the {@code cpu} mode records none).</li>
 * </ul>
 * Each iteration ends with a garbage collection, in every mode alike, outside the measured time.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar DispatchOverhead -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch", "-XX:+UseParallelGC"})
public class DispatchOverhead {

    @Param({"none", "idle", "cpu", "shapes", "jfr"})
    public String mode;

    private final Tensor a = Tensor.of(new float[] {1f}, 1);
    private final Tensor b = Tensor.of(new float[] {2f}, 1);
    private BenchProfiler core;
    private Profile profile;
    private Recording recording;

    /** The JFR event of the {@code jfr} mode. */
    @jdk.jfr.Name("vantage.bench.Op")
    static final class OpEvent extends Event {
        @jdk.jfr.Label("op")
        String op;
    }

    @Setup(Level.Trial)
    public void setUp() {
        BenchBackends.install(new Recordings.NoOpBackend());
        if (!mode.equals("none") && !mode.equals("jfr")) {
            core = new BenchProfiler(64_000_000L);
        }
        if (mode.equals("jfr")) {
            recording = new Recording();
            // like for like: the cpu mode records no stack either
            recording.enable(OpEvent.class).withoutStackTrace();
            recording.start();
        }
    }

    @Setup(Level.Iteration)
    public void startProfile() {
        if (mode.equals("cpu") || mode.equals("shapes")) {
            profile = core.profiler().profile().recordShapes(mode.equals("shapes")).start();
        }
    }

    @TearDown(Level.Iteration)
    public void stopProfile() {
        if (profile != null) {
            profile.stop();
            // the raw counts: analysing the trace here would add its arrays to the measured allocation
            if (BenchProfiler.dropped(profile) > 0) {
                throw new IllegalStateException("the benchmark filled the buffer: raise maxEvents");
            }
            profile = null;
        }
        // as in any program that allocates: the collector runs now and then, and the stopped profile's off-heap
        // blocks go back to the pool for the next iteration instead of fresh memory
        System.gc();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (core != null) {
            core.close();
        }
        if (recording != null) {
            recording.close();
        }
        BenchBackends.clear();
    }

    @Benchmark
    public Tensor dispatch() {
        if (recording != null) {
            OpEvent e = new OpEvent();
            e.begin();
            Tensor t = a.add(b);
            e.op = "aten::add";
            e.commit();
            return t;
        }
        return a.add(b);
    }
}
