package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.Trace;

/**
 * The {@code perfetto} format: Perfetto's native protobuf trace ({@code <name>.pftrace}), which ui.perfetto.dev
 * and Perfetto's trace processor open directly; see {@link PerfettoTraceWriter} for what it holds. A target ending
 * in {@code .gz} is gzip-compressed (Perfetto reads that too). The file is written under a temporary name in the
 * target's directory and renamed when complete, so a failure never leaves a partial trace under the target's name.
 * Encoding and writing overlap ({@link TraceFiles#writePipelined}).
 */
@Component(service = TraceExporter.class)
public class PerfettoTraceExporter implements TraceExporter {

    @Override
    public String format() {
        return "perfetto";
    }

    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName + ".pftrace");
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        Objects.requireNonNull(trace, "trace");
        TraceFiles.writePipelined(target, "vantage-perfetto-export", out -> PerfettoTraceWriter.write(trace, out));
    }
}
