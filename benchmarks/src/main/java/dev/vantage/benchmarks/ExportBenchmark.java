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
 * What the export benchmarks share: single-shot exports of a {@link GeneratedTrace} of {@code events} events to a
 * file in a temporary directory, forks with a 256 MB heap, and the file's bytes per event printed after each
 * iteration. A subclass picks the exporter and the file's name from its own parameters.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public abstract class ExportBenchmark {

    @Param({"1000000"})
    public int events;

    private TraceExporter exporter;
    private GeneratedTrace trace;
    private Path dir;
    private Path file;

    /** The format this trial exports, as {@link Exporters#of} names it. */
    protected abstract String format();

    /** The name of the file this trial writes, whose ending may tell the exporter how (a {@code .gz}). */
    protected abstract String fileName();

    /** What the line of the file's size starts with: nothing unless the benchmark writes more than one format. */
    protected String sizeLabel() {
        return "";
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        exporter = Exporters.of(format());
        trace = new GeneratedTrace(events);
        dir = Files.createTempDirectory("vantage-bench");
        file = dir.resolve(fileName());
    }

    @Benchmark
    public Path export() throws IOException {
        exporter.export(trace, file);
        return file;
    }

    @TearDown(Level.Iteration)
    public void size() throws IOException {
        System.out.printf("%n%s%.1f bytes/event (%d bytes)%n", sizeLabel(), Files.size(file) / (double) events,
                Files.size(file));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }
}
