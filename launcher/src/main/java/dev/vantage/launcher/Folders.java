package dev.vantage.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The launcher's file helpers: the jars of a folder, and removing a folder tree. */
public final class Folders {

    private Folders() {
    }

    /**
     * Returns the {@code .jar} files of a folder, sorted by name.
     *
     * @param required whether a missing folder is a broken distribution (else: no jars)
     * @throws LaunchException if a required folder is missing
     */
    public static List<Path> jars(Path dir, boolean required) throws IOException, LaunchException {
        if (!Files.isDirectory(dir)) {
            if (required) {
                throw new LaunchException("bundle folder " + dir + " is missing; rebuild the distribution"
                        + " (mvn -DskipTests package)");
            }
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().collect(Collectors.toList());
        }
    }

    /**
     * Removes a folder and everything in it; what another process removes at the same time is taken as removed, and
     * anything else that cannot be removed is said on standard error.
     */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (UncheckedIOException e) {
            // another launcher removing the same leftover folder at the same time (the ranks of a launch start
            // together): what is gone is gone, whoever removed it
            if (!(e.getCause() instanceof NoSuchFileException)) {
                System.err.println("vantage: could not remove " + root + ": " + e.getCause().getMessage());
            }
        } catch (NoSuchFileException e) {
            // removed by another launcher meanwhile
        } catch (IOException e) {
            System.err.println("vantage: could not remove " + root + ": " + e.getMessage());
        }
    }
}
