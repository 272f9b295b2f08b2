package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Objects;
import java.util.zip.GZIPOutputStream;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.Trace;

/**
 * The {@code perfetto} format: Perfetto's native protobuf trace ({@code <name>.pftrace}), which ui.perfetto.dev
 * and Perfetto's trace processor open directly; see {@link PerfettoTraceWriter} for what it holds. A target ending
 * in {@code .gz} is gzip-compressed (Perfetto reads that too). The file is written under a temporary name in the
 * target's directory and renamed when complete, so a failure never leaves a partial trace under the target's name.
 * Encoding and writing overlap: a {@link ChunkPipe} writes (and compresses) on a thread of its own.
 */
@Component(service = TraceExporter.class)
public class PerfettoTraceExporter implements TraceExporter {

    /** The pipe's chunk: large enough that handing one over costs little against encoding it. */
    private static final int CHUNK_BYTES = 1 << 18;

    /** The most chunks in memory at once: 1 MiB per export in flight. */
    private static final int CHUNKS = 4;

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
        Path file = target.toAbsolutePath();
        boolean gzip = file.getFileName().toString().endsWith(".gz");
        // encoding runs on the caller's thread while a second one compresses and writes the previous chunk;
        // closing the pipe closes (and so finishes) the gzip stream
        TraceFiles.writeFile(file, out -> {
            try (OutputStream pipe = new ChunkPipe(gzip ? new GZIPOutputStream(out, 1 << 16) : out, CHUNK_BYTES,
                    CHUNKS, "vantage-perfetto-export")) {
                PerfettoTraceWriter.write(trace, pipe);
            }
        });
    }
}
