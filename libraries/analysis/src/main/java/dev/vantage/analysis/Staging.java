package dev.vantage.analysis;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where {@code convert} writes before anything is under its final name: a hidden folder in the output directory
 * ({@code .convert.<pid>.<random>.tmp}). {@link #commit} renames what was written into the output directory, each
 * name only if nothing has it there (a name given twice never replaces a folder); {@link #close} removes the
 * staging folder, and the output directory too when this conversion created it and left nothing in it. A
 * {@code SIGTERM} runs the same removal from a shutdown hook; what a {@code kill -9} leaves is removed by the next
 * conversion into the same directory, once the process that wrote it is gone.
 *
 * <p>Not thread-safe; one per conversion.
 */
final class Staging implements AutoCloseable {

    private static final Pattern STAGED = Pattern.compile("\\.convert\\.(\\d+)\\.[0-9a-f-]{36}\\.tmp");

    private final Path output;
    private final Path dir;
    private final List<Path> created;
    private final Thread hook;
    private boolean committed;

    private Staging(Path output, Path dir, List<Path> created) {
        this.output = output;
        this.dir = dir;
        this.created = created;
        this.hook = new Thread(this::remove, "vantage-convert-cleanup");
    }

    /**
     * Creates the output directory if missing, and a staging folder in it.
     *
     * @throws IOException naming the directory that cannot be created or written
     */
    static Staging open(Path output) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = output; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        try {
            Files.createDirectories(output);
        } catch (IOException e) {
            throw new IOException("cannot create " + output + ": " + Tools.reason(e), e);
        }
        removeLeftovers(output);
        Path dir = output.resolve(".convert." + ProcessHandle.current().pid() + "." + UUID.randomUUID() + ".tmp");
        Staging staging = new Staging(output, dir, missing);
        try {
            Files.createDirectory(dir);
        } catch (IOException e) {
            staging.remove();
            throw new IOException("cannot write in " + output + ": " + Tools.reason(e), e);
        }
        Runtime.getRuntime().addShutdownHook(staging.hook);
        return staging;
    }

    /** Returns the folder to write into. */
    Path dir() {
        return dir;
    }

    /** Returns the name a staged entry will have in the output directory. */
    Path target(String name) {
        return output.resolve(name);
    }

    /**
     * Renames the staged entries into the output directory, in order.
     *
     * @throws IOException naming the entry when another conversion wrote the same name meanwhile (those renamed
     *     before it stay), or a rename fails
     */
    void commit(List<String> names) throws IOException {
        for (String name : names) {
            Path target = output.resolve(name);
            try {
                try {
                    Files.move(dir.resolve(name), target, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(dir.resolve(name), target);
                }
                committed = true;
            } catch (java.nio.file.FileSystemException e) {
                // an atomic rename onto a folder that is there fails "Directory not empty" (or "exists")
                if (!Files.exists(target)) {
                    throw e;
                }
                throw new IOException(target + " was written by another conversion meanwhile; it is kept, and this"
                        + " conversion of it is not", e);
            }
        }
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs the same removal
        }
        remove();
    }

    private synchronized void remove() {
        deleteTree(dir);
        if (!committed) {
            for (int i = created.size() - 1; i >= 0; i--) {
                try {
                    Files.deleteIfExists(created.get(i));
                } catch (IOException e) {
                    return; // not empty: something else was written there meanwhile
                }
            }
        }
    }

    /** Removes the staging folders of conversions into {@code output} whose process is gone. */
    private static void removeLeftovers(Path output) {
        try (Stream<Path> s = Files.list(output)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Matcher m = STAGED.matcher(p.getFileName().toString());
                if (m.matches() && !ProcessHandle.of(Long.parseLong(m.group(1))).map(ProcessHandle::isAlive)
                        .orElse(false)) {
                    deleteTree(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // another run's leftovers are not this conversion's failure
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | RuntimeException e) {
            // what cannot be removed now is removed by the next conversion into the directory
        }
    }
}
