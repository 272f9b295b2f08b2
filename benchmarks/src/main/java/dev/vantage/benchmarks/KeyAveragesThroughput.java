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
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.store.BlockSource;
import dev.vantage.tensor.internal.StandaloneBackends;

/**
 * {@code keyAverages()} and {@code table()} over {@code events} recorded events with 20 distinct names, each call
 * grouping afresh, with and without the percentile columns (the per-key sketches are always filled). Divide
 * {@code events} by the score for events per second; the budget is 5 M events/s.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar KeyAveragesThroughput}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class KeyAveragesThroughput {

    @Param({"1000000"})
    public int events;

    @Param({"false", "true"})
    public boolean percentiles;

    private StandaloneProfiler core;
    private Profile profile;
    private AnalysedTrace trace;

    @Setup(Level.Trial)
    public void setUp() {
        StandaloneBackends.install(new Recordings.NoOpBackend());
        core = new StandaloneProfiler(64_000_000L);
        profile = core.profiler().profile().start();
        Recordings.record(events);
        profile.stop();
        trace = new AnalysedTrace(StandaloneProfiler.frozen(profile), BlockSource.DIRECT);
    }

    @Benchmark
    public String keyAveragesAndTable() {
        // grouped afresh each call, as the engine's keyAverages does
        return trace.keyAverages(false, 0).table(new TableOptions(SortKey.SELF_CPU_TIME_TOTAL, 20, percentiles,
                false));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        core.close();
        StandaloneBackends.clear();
    }
}
