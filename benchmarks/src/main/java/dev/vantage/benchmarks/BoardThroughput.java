package dev.vantage.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
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

import dev.vantage.board.internal.StandaloneBoard;

/**
 * {@code vantage board}'s two answers a user waits on: the runs list of a log directory of {@code runs} traces
 * ({@code listing}: the walk and the JSON, as a refresh a second after the last computes it), and a large trace's
 * Overview once the trace was read ({@code overviewHeld}: the view from the held summary and its JSON), with the
 * first read of it ({@code overviewFirst}: the engine's read and the analyses the Overview shows at once, then the
 * view; {@code analysesFirst}: until each step's critical path and the advice are done too) for comparison with
 * {@code TraceReadThroughput}. The traces are {@link KinetoTraceFile}'s, {@code mb} MiB for the Overview, read in a
 * 4 GiB heap (a quarter of this 24 GiB machine is the JVM's default; 512 MiB is too little for the analyses of
 * 1 GiB).
 * Run: {@code java -jar benchmarks/target/benchmarks.jar BoardThroughput}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class BoardThroughput {

    @Param({"100"})
    public int runs;

    @Param({"1024"})
    public int mb;

    private Path dir;
    private StandaloneBoard board;
    private String big;
    private StandaloneBoard fresh;

    @Setup(Level.Trial)
    public void write() throws IOException {
        dir = Files.createTempDirectory("vantage-board");
        Path small = dir.resolve("small.json");
        KinetoTraceFile.write(small, 64 << 10);
        // runs as a training job's folder holds them: TensorBoard's layout, one capture each
        for (int i = 0; i < runs; i++) {
            Path to = dir.resolve("job/plugins/profile/capture-" + i + "/worker0.pt.trace.json");
            Files.createDirectories(to.getParent());
            Files.copy(small, to);
        }
        Files.delete(small);
        Path large = dir.resolve("large/worker0.pt.trace.json");
        Files.createDirectories(large.getParent());
        long bytes = KinetoTraceFile.write(large, (long) mb << 20);
        System.out.println("large trace: " + bytes + " bytes");
        board = new StandaloneBoard(dir, 8);
        big = board.id("large/worker0.pt.trace.json");
        if (board.ids().size() != runs + 1 || big == null) {
            throw new IllegalStateException("the board lists " + board.ids().size() + " runs");
        }
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    @Benchmark
    public byte[] listing() throws IOException {
        return board.listing();
    }

    @Benchmark
    public byte[] overviewHeld() throws IOException {
        return board.overview(big);
    }

    @Benchmark
    public byte[] overviewFirst() throws IOException {
        // a board of its own: nothing held, so the trace is read as when it is first chosen
        fresh = new StandaloneBoard(dir, 1);
        return fresh.overview(big);
    }

    @Benchmark
    public Object engineRead() throws IOException {
        // what the engine needs to read the trace the first time, as report reads it: the read and the summary
        return dev.vantage.trace.engine.read.TraceReader.summary(dir.resolve("large/worker0.pt.trace.json"));
    }

    @Benchmark
    public byte[] analysesFirst() throws IOException {
        // the same, until every analysis is done: the critical paths and the advice the Overview shows last
        StandaloneBoard board = new StandaloneBoard(dir, 1);
        board.overview(big);
        return board.complete(big);
    }

    /** The critical paths of an Overview's run go on after it: done before the next iteration reads again. */
    @TearDown(Level.Iteration)
    public void settle() throws IOException {
        if (fresh != null) {
            fresh.complete(big);
            fresh = null;
        }
    }
}
