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
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.internal.StandaloneBackends;

/**
 * The time from {@code stop()} to a trace an exporter can read: the tree, self times and correlation of
 * {@code events} recorded events (a fifth of them annotations with four ops inside). Each invocation records a
 * fresh profile first, untimed. Divide the score by {@code events} for ns per event; the budget is 1 µs per event.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar StopToTraceReady}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class StopToTraceReady {

    @Param({"1000000"})
    public int events;

    private StandaloneProfiler core;
    private Profile profile;

    @Setup(Level.Trial)
    public void setUp() {
        StandaloneBackends.install(new Recordings.NoOpBackend());
        core = new StandaloneProfiler(64_000_000L);
    }

    @Setup(Level.Invocation)
    public void record() {
        profile = core.profiler().profile().start();
        Recordings.record(events);
    }

    @Benchmark
    public long stopToTraceReady() {
        profile.stop();
        return profile.trace().eventCount();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        core.close();
        StandaloneBackends.clear();
    }
}
