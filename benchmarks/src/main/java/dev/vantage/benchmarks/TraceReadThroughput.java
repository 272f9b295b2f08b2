package dev.vantage.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;

import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The trace engine's reader ({@code report}, {@code compare}, {@code convert}) on an uncompressed Kineto
 * trace of {@code mb} MiB written by {@link KinetoTraceFile}: the whole read (parse into the columns, linkage,
 * nesting, the summary) per operation, in a 256 MB heap. MB/s = the size the setup prints / the score.
 * {@code jacksonTokens} is the ceiling on the same machine at the same time: Jackson's streaming parser walking
 * every token of the same file and doing nothing with them.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar TraceReadThroughput}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class TraceReadThroughput {

    @Param({"256"})
    public int mb;

    private Path dir;
    private Path file;

    @Setup(Level.Trial)
    public void write() throws IOException {
        dir = Files.createTempDirectory("vantage-read");
        file = dir.resolve("trace.json");
        long bytes = KinetoTraceFile.write(file, (long) mb << 20);
        System.out.println("trace: " + bytes + " bytes");
    }

    @TearDown(Level.Trial)
    public void delete() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    @Benchmark
    public TraceSummary read() throws IOException {
        return TraceReader.summary(file);
    }

    @Benchmark
    public long jacksonTokens() throws IOException {
        long n = 0;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
                JsonParser p = new JsonFactory().createParser(in)) {
            while (p.nextToken() != null) {
                n++;
            }
        }
        return n;
    }
}
