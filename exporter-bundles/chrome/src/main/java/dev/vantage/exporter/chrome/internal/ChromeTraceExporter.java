package dev.vantage.exporter.chrome.internal;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
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
        Path dir = file.getParent();
        Files.createDirectories(dir);
        // a unique hidden name beside the target, so the final rename stays within one file system
        Path tmp = dir.resolve("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (OutputStream raw = new BufferedOutputStream(
                    Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), 1 << 16);
                    OutputStream out = file.getFileName().toString().endsWith(".gz")
                            ? new GZIPOutputStream(raw, 1 << 16) : raw) {
                ChromeTraceWriter.write(trace, file.toString(), out);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
