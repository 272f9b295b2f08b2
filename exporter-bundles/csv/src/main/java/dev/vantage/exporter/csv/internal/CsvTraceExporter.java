package dev.vantage.exporter.csv.internal;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
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
        Path dir = target.toAbsolutePath();
        Files.createDirectories(dir.getParent());
        Path tmp = dir.resolveSibling("." + dir.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Files.createDirectory(tmp);
        try {
            CsvViews.write(trace, tmp);
            if (Files.exists(dir)) {
                deleteTree(dir);
            }
            try {
                Files.move(tmp, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir);
            }
        } finally {
            if (Files.exists(tmp)) {
                deleteTree(tmp);
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
