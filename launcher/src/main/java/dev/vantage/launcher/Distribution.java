package dev.vantage.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where a distribution is: the folder holding this launcher's jar (or {@code -Dvantage.home}), or a sibling folder
 * named by {@code --distribution}. A distribution holds {@code launcher.jar}, {@code lib/}, {@code bundles/},
 * {@code conf/} and {@code deploy/}.
 */
public final class Distribution {

    private Distribution() {
    }

    /**
     * Returns the distribution folder: the launcher's own, or the sibling named.
     *
     * @param name {@code --distribution}, or null for the launcher's own
     * @throws IllegalArgumentException if no sibling of that name holds bundles; the message lists those that do
     */
    public static Path home(String name) throws LaunchException {
        Path own = ownHome();
        if (name == null || name.equals(own.getFileName().toString())) {
            return own;
        }
        Path sibling = own.resolveSibling(name);
        if (!Files.isDirectory(sibling.resolve("bundles"))) {
            List<String> known = new ArrayList<>();
            try (Stream<Path> s = Files.list(own.getParent())) {
                s.filter(p -> Files.isDirectory(p.resolve("bundles")))
                        .forEach(p -> known.add(p.getFileName().toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            known.sort(null);
            throw new IllegalArgumentException("unknown distribution '" + name + "'; available: "
                    + String.join(", ", known));
        }
        return sibling;
    }

    /** Returns this launcher's jar. */
    public static Path launcherJar() throws LaunchException {
        try {
            return Path.of(Distribution.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new LaunchException("cannot tell where launcher.jar is: " + e.getMessage());
        }
    }

    private static Path ownHome() throws LaunchException {
        String override = System.getProperty("vantage.home");
        if (override != null) {
            return Path.of(override).toAbsolutePath().normalize();
        }
        return launcherJar().getParent().toAbsolutePath().normalize();
    }
}
