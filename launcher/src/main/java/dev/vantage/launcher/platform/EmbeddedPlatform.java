package dev.vantage.launcher.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.wiring.BundleRevision;

import dev.vantage.launcher.LaunchException;

/**
 * The platform booted inside another JVM, as the Vantage agent runs it in an application: the bundles of a
 * distribution in a Felix of their own, configured like {@code serve} (FileInstall on a deploy directory, with
 * {@link DeployChecker}'s and {@link FileInstallLog}'s one-line reports), but leaving the host JVM's global state
 * alone: Felix's URL handlers are off, and the platform's classes come from the class loader that loaded this one,
 * never the application's. One instance boots once; {@link #stop} stops it.
 */
public final class EmbeddedPlatform {

    /** One bundle to install: its name, for messages, and where to read it. */
    public record BundleJar(String name, InputStreamSupplier content) {
    }

    /** Opens a bundle jar's content. */
    @FunctionalInterface
    public interface InputStreamSupplier {
        /** Opens the jar; the caller closes it. */
        InputStream open() throws IOException;
    }

    private final Framework framework;
    private final List<Bundle> bundles;

    private EmbeddedPlatform(Framework framework, List<Bundle> bundles) {
        this.framework = framework;
        this.bundles = bundles;
    }

    /**
     * Boots the platform: a framework with its storage in {@code storage}, every bundle installed and started, and
     * FileInstall watching {@code deployDir}.
     *
     * @param storage a folder of this process's own for the framework's cache (the caller removes it at exit)
     * @param deployDir the deploy directory; made if missing
     * @param jars the bundles, installed in this order and started (fragments are only installed)
     * @param properties framework properties on top of the defaults here (such as
     *     {@code org.osgi.framework.system.packages.extra}), also visible to bundles as framework properties
     * @param err where deploy problems are reported, one line each
     * @return the running platform
     * @throws LaunchException naming the jar that cannot be installed or started, or when no framework is found
     */
    public static EmbeddedPlatform start(Path storage, Path deployDir, List<BundleJar> jars,
            Map<String, String> properties, PrintStream err) throws LaunchException {
        try {
            Files.createDirectories(deployDir);
        } catch (IOException e) {
            throw new LaunchException("deploy directory " + deployDir + " cannot be made (" + e.getMessage() + ")");
        }
        Map<String, String> config = new HashMap<>();
        config.put(Constants.FRAMEWORK_STORAGE, storage.resolve("cache").toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        // Felix's URL handlers replace the JVM's URL stream handler factory: not in someone else's JVM
        config.put("felix.service.urlhandlers", "false");
        config.put("felix.fileinstall.dir", deployDir.toString());
        config.put("felix.fileinstall.poll", "500");
        config.put("felix.fileinstall.noInitialDelay", "true");
        config.put("felix.fileinstall.enableConfigSave", "false");
        config.put("felix.fileinstall.log.level", "2");
        config.put("felix.fileinstall.log.default", "jul");
        config.putAll(properties);
        FileInstallLog.install(err, deployDir);
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class, EmbeddedPlatform.class.getClassLoader())
                .findFirst().orElseThrow(() -> new LaunchException("no OSGi framework beside the agent's classes"));
        Framework framework = factory.newFramework(config);
        List<Bundle> installed = new ArrayList<>();
        try {
            framework.init();
            BundleContext context = framework.getBundleContext();
            for (BundleJar jar : jars) {
                try (InputStream in = jar.content().open()) {
                    installed.add(context.installBundle("vantage-agent:" + jar.name(), in));
                } catch (IOException | BundleException | RuntimeException e) {
                    throw new LaunchException("cannot install bundle " + jar.name() + ": " + e.getMessage());
                }
            }
            framework.start();
            for (Bundle b : installed) {
                if ((b.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) == 0) {
                    try {
                        b.start();
                    } catch (BundleException | RuntimeException e) {
                        throw new LaunchException("bundle " + b.getSymbolicName() + " failed to start: "
                                + e.getMessage());
                    }
                }
            }
            new DeployChecker(deployDir, context, err, null).start(500);
        } catch (BundleException | RuntimeException | LaunchException e) {
            stop(framework);
            if (e instanceof LaunchException l) {
                throw l;
            }
            throw new LaunchException("the framework failed to start: " + e.getMessage());
        }
        return new EmbeddedPlatform(framework, List.copyOf(installed));
    }

    /** Returns how many bundles the platform installed. */
    public int bundleCount() {
        return bundles.size();
    }

    /** Returns the framework's bundle context, for what the embedding code registers or looks up. */
    public BundleContext context() {
        return framework.getBundleContext();
    }

    /**
     * Stops the platform and waits for it, at most {@code waitMillis}: its bundles deactivate (a capture under way
     * writes its files) in that time.
     */
    public void stop(long waitMillis) {
        try {
            if ((framework.getState() & (Bundle.STARTING | Bundle.ACTIVE)) != 0) {
                framework.stop();
            }
            framework.waitForStop(waitMillis);
        } catch (BundleException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void stop(Framework framework) {
        try {
            framework.stop();
            framework.waitForStop(5_000);
        } catch (BundleException | InterruptedException | RuntimeException e) {
            // a framework that failed to start is left to the process's exit
        }
    }

    /**
     * Removes the folders of processes that died before removing their own: folders in {@code tmp} named
     * {@code <prefix><pid>-...} whose process is gone, of this user.
     */
    public static void removeFoldersOfDeadProcesses(Path tmp, String prefix) {
        Boot.removeFoldersOfDeadRuns(tmp, prefix);
    }
}
