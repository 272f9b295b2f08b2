package dev.vantage.benchmarks;

import java.util.ServiceLoader;

import dev.vantage.profiler.spi.TraceExporter;

/** The exporters on the benchmarks' class path, found as any plain-jar user finds them: by {@link ServiceLoader}. */
final class Exporters {

    private Exporters() {
    }

    /** Returns the exporter of a format ({@code chrome}, {@code perfetto}, ...). */
    static TraceExporter of(String format) {
        for (TraceExporter e : ServiceLoader.load(TraceExporter.class)) {
            if (e.format().equals(format)) {
                return e;
            }
        }
        throw new IllegalStateException("no exporter of format " + format + " on the class path");
    }
}
