package dev.vantage.exporter.chrome.internal;

import java.io.IOException;
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
 * and renamed when complete, so a failure never leaves a partial trace under the target's name.
 */
@Component(service = TraceExporter.class)
public class ChromeTraceExporter implements TraceExporter {

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
        // the JSON generator closes the stream it writes to, which also finishes and releases the gzip stream
        TraceFiles.writeFile(file, out -> ChromeTraceWriter.write(trace, file.toString(),
                gzip ? new GZIPOutputStream(out, 1 << 16) : out));
    }
}
