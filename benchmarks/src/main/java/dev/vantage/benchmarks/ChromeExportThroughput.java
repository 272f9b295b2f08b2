package dev.vantage.benchmarks;

import org.openjdk.jmh.annotations.Param;

/**
 * The chrome exporter writing a generated trace (host ops, annotations, kernels and memory instants; shapes on a
 * third of the ops) of {@code events} events, plain and gzip-compressed. Divide {@code events} by the score for
 * events per second; each iteration prints the file's bytes per event. Every fork runs with a 256 MB heap, so a
 * run that completes shows memory stays bounded whatever the trace size.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar ChromeExportThroughput} and, for 10 M events,
 * {@code ... ChromeExportThroughput -p events=10000000 -wi 0 -i 1}
 */
public class ChromeExportThroughput extends ExportBenchmark {

    @Param({"false", "true"})
    public boolean gzip;

    @Override
    protected String format() {
        return "chrome";
    }

    @Override
    protected String fileName() {
        return "bench.trace.json" + (gzip ? ".gz" : "");
    }
}
