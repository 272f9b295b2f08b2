package dev.vantage.exporter.parquet.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.Trace;

/**
 * The {@code parquet} format: a trace as four columnar tables ({@code events}, {@code kernels}, {@code memory},
 * {@code steps}), one Parquet file each in a folder {@code <name>_parquet/}, every row carrying the run id, rank and
 * world size so that the folders of many ranks and runs can be read as one table (docs/parquet-schema.md). The
 * folder is written under a temporary name and renamed when every file is complete.
 */
@Component(service = TraceExporter.class)
public class ParquetTraceExporter implements TraceExporter {

    /** The suffix of the folder a trace is written to. */
    static final String SUFFIX = "_parquet";

    @Override
    public String format() {
        return "parquet";
    }

    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName + SUFFIX);
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        Objects.requireNonNull(trace, "trace");
        Objects.requireNonNull(target, "target");
        RunIdentity run = RunIdentity.of(trace, target);
        TraceFiles.writeFolder(target, folder -> TraceTables.write(trace, run, folder));
    }
}
