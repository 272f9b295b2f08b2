package dev.vantage.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the fuzz targets share: telling a reader's documented refusal from a finding, and a scratch directory for
 * the inputs of the readers that take a file.
 *
 * <p>A refusal is the one exception type a target documents (its class javadoc names it) with a message of one line:
 * not empty, without a line break. Anything else that leaves a reader is a finding: Jazzer keeps the input and the
 * test fails.
 */
public final class Refusals {

    private static Path scratch;

    private Refusals() {
    }

    /**
     * Returns when {@code thrown} is the documented refusal; rethrows it, or an {@link AssertionError} that holds it,
     * when it is a finding.
     *
     * @param refusal the refusal's type
     * @param prefix what the message must start with (the file's name, say), or "" for anything
     */
    public static void expect(Throwable thrown, Class<? extends Throwable> refusal, String prefix) {
        if (!refusal.isInstance(thrown)) {
            throw new AssertionError("not a refusal (" + refusal.getSimpleName() + "): " + thrown, thrown);
        }
        String message = thrown.getMessage();
        if (message == null || message.isBlank() || message.indexOf('\n') >= 0 || message.indexOf('\r') >= 0) {
            throw new AssertionError("a refusal is one line, not " + (message == null ? "none" : "'" + message + "'"),
                    thrown);
        }
        if (!message.startsWith(prefix)) {
            throw new AssertionError("a refusal names " + prefix + ": '" + message + "'", thrown);
        }
    }

    /** Writes an input into a file of the given name in this JVM's scratch directory, replacing the last one. */
    public static synchronized Path file(String name, byte[] content) {
        try {
            if (scratch == null) {
                // a name of one length in every run: a fixed-seed run (mvn verify) must see the same paths' lengths,
                // which loops over a refusal's text count, to explore the same inputs every time
                scratch = Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                        String.format("vantage-fuzz-%010d", ProcessHandle.current().pid())));
                Path dir = scratch;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
            }
            Path file = scratch.resolve(name);
            Files.createDirectories(file.getParent());
            Files.write(file, content);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory: the system cleans it up otherwise
        }
    }
}
