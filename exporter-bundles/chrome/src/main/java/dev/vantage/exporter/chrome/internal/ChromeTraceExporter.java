package dev.vantage.exporter.chrome.internal;

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
 * The {@code chrome} format: Kineto-style Chrome trace JSON that Perfetto and chrome://tracing open. A target
 * ending in {@code .gz} is gzip-compressed. The file is written under a temporary name in the target's directory
 * and renamed when complete, so a failure never leaves a partial trace under the target's name. Encoding and
 * writing overlap: a {@link PipelinedOutputStream} compresses and writes on a thread of its own.
 */
@Component(service = TraceExporter.class)
public class ChromeTraceExporter implements TraceExporter {

    /** The pipe's chunk: large enough that handing one over costs little against encoding it. */
    private static final int CHUNK_BYTES = 1 << 18;

    /** The most chunks in memory at once: 1 MiB per export in flight. */
    private static final int CHUNKS = 4;

    @Override
    public String format() {
        return "chrome";
    }

    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName + ".trace.json.gz");
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        Objects.requireNonNull(trace, "trace");
        Path file = target.toAbsolutePath();
        boolean gzip = file.getFileName().toString().endsWith(".gz");
        // encoding runs on the caller's thread while a second thread compresses and writes the previous chunk;
        // closing the pipe (the JSON generator closes it too) finishes and releases the gzip stream
        TraceFiles.writeFile(file, out -> {
            try (OutputStream pipe = new PipelinedOutputStream(gzip ? new GZIPOutputStream(out, 1 << 16) : out,
                    CHUNK_BYTES, CHUNKS, "vantage-chrome-export")) {
                ChromeTraceWriter.write(trace, file.toString(), pipe);
            }
        });
    }
}
