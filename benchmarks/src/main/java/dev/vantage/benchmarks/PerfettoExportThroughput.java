package dev.vantage.benchmarks;

import org.openjdk.jmh.annotations.Param;

/**
 * {@link ChromeExportThroughput}'s generated trace written as Perfetto's native {@code .pftrace} and, in the same
 * run, as plain Chrome JSON, uncompressed both: {@code format} picks the exporter. Divide {@code events} by the
 * score for events per second; each iteration prints the file's bytes per event. Every fork runs with a 256 MB heap,
 * so a run that completes shows memory stays bounded whatever the trace size.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar PerfettoExportThroughput} and, for 10 M events,
 * {@code ... PerfettoExportThroughput -p events=10000000 -wi 0 -i 1}
 */
public class PerfettoExportThroughput extends ExportBenchmark {

    @Param({"perfetto", "chrome"})
    public String format;

    @Override
    protected String format() {
        return format;
    }

    @Override
    protected String fileName() {
        return format.equals("perfetto") ? "bench.pftrace" : "bench.trace.json";
    }

    @Override
    protected String sizeLabel() {
        return format + ": ";
    }
}
