package dev.vantage.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A command line the launcher parsed and checked, handed to the platform it boots, and the way the verb's exit code
 * goes back: the one service the launcher registers in the platform (property {@code vantage.launcher=command}).
 * The platform runs the verb with the very options object the launcher parsed ({@link #command()}): the launcher's
 * framework exports this package from the launcher's own class path (at {@link #packageVersion()}), so the platform's
 * bundles and the launcher share its classes and nothing is parsed twice.
 */
@ProviderType
public interface LaunchedCommand {

    /** The exit code that tells the launcher the platform keeps running: {@code serve} and {@code shell}, once up. */
    int KEEP_RUNNING = -1;

    /** Returns the command line as the launcher parsed and checked it. */
    ParsedCommand command();

    /**
     * Hands the verb's exit code back to the launcher: 0 done, 1 the work failed, 2 refused, or
     * {@link #KEEP_RUNNING}. Call it once.
     */
    void exit(int code);

    /**
     * Returns the version of this package as its jar exports it ({@code Export-Package}), which is what a framework
     * that shares the package with its bundles exports it at.
     *
     * @throws IllegalStateException if the jar or class folder this package came from says no version for it
     */
    static String packageVersion() {
        String header;
        try {
            header = exportPackage(Path.of(LaunchedCommand.class.getProtectionDomain().getCodeSource().getLocation()
                    .toURI()));
        } catch (IOException | URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot read the manifest of the command line's jar: " + e, e);
        }
        String version = header == null ? null : ExportedVersion.of(header, LaunchedCommand.class.getPackageName());
        if (version == null) {
            throw new IllegalStateException("the command line's jar exports no version of "
                    + LaunchedCommand.class.getPackageName() + " (Export-Package: " + header + ")");
        }
        return version;
    }

    private static String exportPackage(Path where) throws IOException {
        Manifest manifest;
        if (Files.isDirectory(where)) {
            Path file = where.resolve("META-INF/MANIFEST.MF");
            if (!Files.isRegularFile(file)) {
                return null;
            }
            try (InputStream in = Files.newInputStream(file)) {
                manifest = new Manifest(in);
            }
        } else {
            try (JarFile jar = new JarFile(where.toFile())) {
                manifest = jar.getManifest();
            }
        }
        return manifest == null ? null : manifest.getMainAttributes().getValue("Export-Package");
    }
}
