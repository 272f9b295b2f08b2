package dev.vantage.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

import dev.vantage.exporter.contract.GeneratedTrace;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * The chrome exporter writing a generated trace (host ops, annotations, kernels and memory instants; shapes on a
 * third of the ops) of {@code events} events, plain and gzip-compressed. Divide {@code events} by the score for
 * events per second; each iteration prints the file's bytes per event. Every fork runs with a 256 MB heap, so a
 * run that completes shows memory stays bounded whatever the trace size.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar ChromeExportThroughput} and, for 10 M events,
 * {@code ... ChromeExportThroughput -p events=10000000 -wi 0 -i 1}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class ChromeExportThroughput {

    @Param({"1000000"})
    public int events;

    @Param({"false", "true"})
    public boolean gzip;

    private final TraceExporter exporter = Exporters.of("chrome");
    private GeneratedTrace trace;
    private Path dir;
    private Path file;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        trace = new GeneratedTrace(events);
        dir = Files.createTempDirectory("vantage-bench");
        file = dir.resolve("bench.trace.json" + (gzip ? ".gz" : ""));
    }

    @Benchmark
    public Path export() throws IOException {
        exporter.export(trace, file);
        return file;
    }

    @TearDown(Level.Iteration)
    public void size() throws IOException {
        System.out.printf("%n%.1f bytes/event (%d bytes)%n", Files.size(file) / (double) events, Files.size(file));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }
}
