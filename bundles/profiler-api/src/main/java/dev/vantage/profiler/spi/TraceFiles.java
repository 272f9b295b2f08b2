package dev.vantage.profiler.spi;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Writes exporter output the way {@link TraceExporter} requires: under a temporary name beside the target,
 * renamed into place only when complete, so a failure never leaves a partial file or folder under the target's
 * name. The temporary name is hidden ({@code .<name>.<pid>.<random>.tmp}) and removed if writing fails. A run that
 * was killed while it wrote cannot remove its own; the next write into the same folder removes every temporary
 * file or folder there whose process is gone.
 */
public final class TraceFiles {

    /** Writes a file's content. */
    @FunctionalInterface
    public interface FileBody {
        /** Writes everything to {@code out}; the caller closes it. */
        void write(OutputStream out) throws IOException;
    }

    /** Writes a folder's files. */
    @FunctionalInterface
    public interface FolderBody {
        /** Writes the files into {@code folder}, which exists and is empty. */
        void write(Path folder) throws IOException;
    }

    private TraceFiles() {
    }

    /**
     * Writes a file atomically, creating its parent folders.
     *
     * @throws IOException if the parent cannot be created, or writing or renaming fails
     */
    public static void writeFile(Path target, FileBody body) throws IOException {
        Path file = Objects.requireNonNull(target, "target").toAbsolutePath();
        List<Path> made = createParents(file.getParent());
        Path tmp = temporary(file);
        boolean written = false;
        try {
            try (OutputStream out = new BufferedOutputStream(
                    Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), 1 << 16)) {
                body.write(out);
            }
            move(tmp, file);
            written = true;
        } finally {
            Files.deleteIfExists(tmp);
            if (!written) {
                removeIfEmpty(made);
            }
        }
    }

    /** The pipe's chunk: large enough that handing one over costs little against encoding it. */
    private static final int CHUNK_BYTES = 1 << 18;

    /** The most chunks in memory at once: 1 MiB per file in flight. */
    private static final int CHUNKS = 4;

    /**
     * Writes a trace file atomically as {@link #writeFile} does, gzip-compressed when the target's name ends in
     * {@code .gz}, with encoding and writing overlapping: {@code body} encodes on the caller's thread while a thread of
     * the file's own compresses and writes the previous 256 KiB (at most 1 MiB held), so a trace costs the encoding
     * time or the disk's, whichever is larger, instead of their sum. A failure of the file reaches {@code body} at its
     * next write.
     *
     * @param threadName the writing thread's name
     * @throws IOException as {@link #writeFile} does
     * @since 3.2
     */
    public static void writePipelined(Path target, String threadName, FileBody body) throws IOException {
        Objects.requireNonNull(body, "body");
        Path file = Objects.requireNonNull(target, "target").toAbsolutePath();
        boolean gzip = file.getFileName().toString().endsWith(".gz");
        writeFile(file, out -> {
            // closing the pipe (a JSON generator closes it too) finishes and releases the gzip stream
            try (OutputStream pipe = new PipelinedOutputStream(
                    gzip ? new java.util.zip.GZIPOutputStream(out, 1 << 16) : out, CHUNK_BYTES, CHUNKS, threadName)) {
                body.write(pipe);
            }
        });
    }

    /**
     * Writes a folder atomically, replacing an earlier one of the same name.
     *
     * @throws IOException if the parent cannot be created, or writing or renaming fails
     */
    public static void writeFolder(Path target, FolderBody body) throws IOException {
        Path folder = Objects.requireNonNull(target, "target").toAbsolutePath();
        List<Path> made = createParents(folder.getParent());
        Path tmp = temporary(folder);
        boolean written = false;
        try {
            Files.createDirectory(tmp);
            body.write(tmp);
            if (Files.exists(folder)) {
                deleteTree(folder);
            }
            move(tmp, folder);
            written = true;
        } finally {
            if (Files.exists(tmp)) {
                deleteTree(tmp);
            }
            if (!written) {
                removeIfEmpty(made);
            }
        }
    }

    /** Creates a folder and its missing parents; returns those it made, outermost first. */
    private static List<Path> createParents(Path dir) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = dir; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        Files.createDirectories(dir);
        return missing;
    }

    /**
     * Removes folders a failed write made, innermost first, while they are empty: a write that fails (a full
     * disk, say) leaves no empty folder behind. One that another writer put a file into meanwhile stays.
     */
    private static void removeIfEmpty(List<Path> made) {
        for (int i = made.size() - 1; i >= 0; i--) {
            try {
                Files.deleteIfExists(made.get(i));
            } catch (IOException e) {
                return;   // not empty, or not ours to remove
            }
        }
    }

    private static final java.util.regex.Pattern TEMPORARY = java.util.regex.Pattern.compile(
            "\\..+\\.(\\d+)\\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.tmp");

    private static Path temporary(Path target) {
        removeTemporariesOfDeadWriters(target.getParent());
        return target.resolveSibling("." + target.getFileName() + "." + ProcessHandle.current().pid() + "."
                + UUID.randomUUID() + ".tmp");
    }

    /** Removes the temporary files and folders in a folder whose writing process is gone. */
    static void removeTemporariesOfDeadWriters(Path folder) {
        if (folder == null || !Files.isDirectory(folder)) {
            return;
        }
        try (Stream<Path> s = Files.list(folder)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                java.util.regex.Matcher m = TEMPORARY.matcher(p.getFileName().toString());
                if (m.matches() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive)
                        .orElse(false)) {
                    if (Files.isDirectory(p)) {
                        deleteTree(p);
                    } else {
                        Files.deleteIfExists(p);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // leftovers of another run are not this write's failure
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
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
