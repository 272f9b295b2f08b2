package dev.vantage.exporter.csv.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.Trace;

/**
 * The {@code csv} format: the torch_npu profiler's CSV views of a trace, one folder per trace
 * ({@code <name>_csv/}), written under a temporary name and renamed when every file is complete. See
 * {@link CsvViews} for the files and what their columns hold.
 */
@Component(service = TraceExporter.class)
public class CsvTraceExporter implements TraceExporter {

    @Override
    public String format() {
        return "csv";
    }

    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName + "_csv");
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        Objects.requireNonNull(trace, "trace");
        TraceFiles.writeFolder(target, folder -> CsvViews.write(trace, folder));
    }
}
