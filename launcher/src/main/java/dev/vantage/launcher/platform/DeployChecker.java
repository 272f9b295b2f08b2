package dev.vantage.launcher.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;

/**
 * Tells the user, in one line each, what FileInstall does not: a jar in the deploy directory that is not a bundle
 * (corrupt, or without {@code Bundle-SymbolicName}), a {@code .cfg} file that cannot be read, and a deployed
 * bundle that cannot start (with the resolver's reason). It never stops the platform. {@link #check()} looks at the
 * directory once; {@link #start} runs it on a daemon thread at the FileInstall poll interval. Each problem is
 * reported once per version of the file.
 */
final class DeployChecker {

    private final Path dir;
    private final BundleContext context;
    private final PrintStream err;
    private final Map<Path, FileTime> reported = new HashMap<>();
    private final Set<Long> failedBundles = new HashSet<>();
    private final Map<Long, Integer> unresolvedChecks = new HashMap<>();
    private final Path providers;

    /**
     * @param providers the bundles folder of the distribution whose jars may provide what a deployed bundle
     *        misses (the full distribution's), or null
     */
    DeployChecker(Path dir, BundleContext context, PrintStream err, Path providers) {
        this.dir = dir;
        this.context = context;
        this.err = err;
        this.providers = providers;
    }

    void start(long pollMillis) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    check();
                    Thread.sleep(pollMillis);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    // the framework is stopping: its bundle context is no longer valid
                    return;
                }
            }
        }, "vantage-deploy-checker");
        t.setDaemon(true);
        t.start();
    }

    /** Looks at the deploy directory once and reports new problems. */
    void check() {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.sorted().collect(Collectors.toList());
        } catch (IOException e) {
            return;
        }
        reported.keySet().retainAll(files);
        for (Path f : files) {
            String name = f.getFileName().toString();
            String problem = name.endsWith(".jar") ? jarProblem(f) : name.endsWith(".cfg") ? cfgProblem(f) : null;
            FileTime modified = modified(f);
            if (problem != null && modified != null && !modified.equals(reported.get(f))) {
                reported.put(f, modified);
                err.println("vantage: deploy: " + f + ": " + problem + "; ignored, the platform goes on");
            }
        }
        checkBundles();
    }

    private static FileTime modified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            return null;
        }
    }

    /** Returns what is wrong with a jar, or null if it looks like a bundle. */
    static String jarProblem(Path jar) {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            if (manifest == null || manifest.getMainAttributes().getValue("Bundle-SymbolicName") == null) {
                return "not an OSGi bundle (its manifest has no Bundle-SymbolicName)";
            }
            return null;
        } catch (IOException e) {
            return "not a readable jar (" + e.getMessage() + ")";
        }
    }

    /** Returns what is wrong with a configuration file, or null if it parses. */
    static String cfgProblem(Path cfg) {
        try (InputStream in = Files.newInputStream(cfg)) {
            new Properties().load(in);
            return null;
        } catch (IOException | IllegalArgumentException e) {
            return "not a valid .cfg properties file (" + e.getMessage() + ")";
        }
    }

    /** Reports deployed bundles that stay unresolved: tries to start them once to get the resolver's reason. */
    private void checkBundles() {
        String prefix = dir.toUri().toString();
        for (Bundle b : context.getBundles()) {
            String location = b.getLocation();
            boolean deployed = location.startsWith(prefix) || location.startsWith("file:" + dir + "/");
            if (!deployed || b.getState() != Bundle.INSTALLED || failedBundles.contains(b.getBundleId())) {
                continue;
            }
            // give FileInstall two polls to resolve and start it before calling it a failure
            int seen = unresolvedChecks.merge(b.getBundleId(), 1, Integer::sum);
            if (seen < 3) {
                continue;
            }
            failedBundles.add(b.getBundleId());
            List<MissingPackages.Missing> missing = MissingPackages.of(b, context);
            if (!missing.isEmpty()) {
                String file = location.substring(location.lastIndexOf('/') + 1);
                err.println("vantage: deploy: " + MissingPackages.describe(b, file, missing, providers));
                continue;
            }
            try {
                b.start();
            } catch (BundleException | RuntimeException e) {
                err.println("vantage: deploy: bundle " + b.getSymbolicName() + " " + b.getVersion() + " ("
                        + location + ") cannot start: " + e.getMessage() + "; the platform goes on");
            }
        }
    }
}
