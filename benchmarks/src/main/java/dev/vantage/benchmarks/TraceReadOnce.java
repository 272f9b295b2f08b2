package dev.vantage.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;

import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Reads one trace with the trace engine's reader, as {@code report} and {@code compare} do, and prints the time
 * and what it found; the counterpart of {@code benchmarks/pytorch/measure_loaders.py} for the comparison in
 * docs/benchmarks.md. Run under {@code /usr/bin/time -v} for wall time and peak RSS:
 * {@code java -Xmx256m -cp benchmarks/target/benchmarks.jar dev.vantage.benchmarks.TraceReadOnce TRACE}.
 */
public final class TraceReadOnce {

    private TraceReadOnce() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long t0 = System.nanoTime();
        TraceSummary s = TraceReader.summary(file);
        long t1 = System.nanoTime();
        System.out.printf("vantage: read %.3f s, %d events, %d steps, %d operators, %d bytes on disk%n",
                (t1 - t0) / 1e9, s.events(), s.steps().size(), s.ops().size(), Files.size(file));
    }
}
