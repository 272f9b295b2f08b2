package dev.vantage.agent.host;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.cli.AgentOptions;
import dev.vantage.cli.ProfileDirectory;
import dev.vantage.cli.UsageException;
import dev.vantage.launcher.Folders;
import dev.vantage.launcher.LaunchException;
import dev.vantage.launcher.platform.EmbeddedPlatform;

/**
 * The agent in the application's JVM, after {@code dev.vantage.agent.bootstrap.AgentStart} loaded it: checks the
 * options (a bad one is one line on standard error, and the application runs unprofiled: nothing is woven, nothing
 * booted), weaves the classes to record ({@link Weaver}), and boots the platform: Felix and the agent distribution's
 * bundles, nested in the agent jar under {@value #BUNDLES}, with the agent's own bundle, which
 * installs the hooks the woven calls reach and runs a capture at start-up when asked.
 *
 * <p>Lifecycle: the platform boots at once for a capture at start-up, else when first needed ({@link LazyPlatform}).
 * The process's folder ({@code home}) holds the host's jars, Felix's cache and, unless another is given, the deploy
 * directory; a JVM shutdown hook asks the platform to end what it records (writing its traces), then removes the
 * folder. The agent's threads are daemons; a JVM exits as it would without the agent.
 */
public final class AgentHost {

    /** Where the platform's bundles are in the agent jar. */
    static final String BUNDLES = "vantage-agent/bundles/";
    /** How long the platform has to write what it records when the application exits. */
    private static final long EXIT_WRITE_MILLIS = 30_000;
    /** How long, with {@code start=startup}, the application's first recorded call waits for the platform. */
    private static final long STARTUP_HOLD_MILLIS = 60_000;
    /** How long the platform, once started, has to install its hooks. */
    private static final long HOOKS_MILLIS = 10_000;

    private AgentHost() {
    }

    /**
     * Checks the agent's options as {@link #start} does, without starting anything.
     *
     * @return the refusal, one line, or null when they are good
     */
    public static String check(String options) {
        try {
            AgentOptions o = AgentOptions.parse(options, System.getenv());
            checkDirectories(o);
            return null;
        } catch (UsageException | IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static void checkDirectories(AgentOptions o) {
        if (o.start() == AgentOptions.Start.STARTUP) {
            try {
                ProfileDirectory.check(o.dir());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("dir=" + e.getMessage());
            }
        }
        if (o.deployDir() != null && Files.exists(o.deployDir()) && !Files.isDirectory(o.deployDir())) {
            throw new IllegalArgumentException("deploy-dir=" + o.deployDir() + ": not a directory");
        }
    }

    /**
     * Starts the agent.
     *
     * @param options the agent's options, or null
     * @param dynamic whether the agent was loaded into a running JVM
     * @param agentJar the agent jar
     * @param home the process's folder, made for it, removed at exit
     */
    public static void start(Instrumentation inst, String options, boolean dynamic, Path agentJar, Path home) {
        AgentOptions o;
        try {
            o = AgentOptions.parse(options, System.getenv());
            checkDirectories(o);
        } catch (UsageException | IllegalArgumentException e) {
            System.setProperty("vantage.agent", "refused: " + e.getMessage());
            System.err.println("vantage-agent: " + e.getMessage() + "; the application runs unprofiled");
            Folders.deleteTree(home);
            return;
        }
        Path deployDir = o.deployDir() != null ? o.deployDir() : home.resolve("deploy");
        try {
            Files.createDirectories(deployDir);
        } catch (IOException e) {
            System.setProperty("vantage.agent", "refused: deploy-dir=" + deployDir + ": " + e.getMessage());
            System.err.println("vantage-agent: deploy-dir=" + deployDir + ": cannot be made (" + e.getMessage()
                    + "); the application runs unprofiled");
            Folders.deleteTree(home);
            return;
        }
        // how 'vantage profile' tells a JVM it can profile: as a platform the launcher booted
        System.setProperty("vantage.platform", "agent");
        System.setProperty("vantage.platform.mode", dynamic ? "attached" : "javaagent");
        System.setProperty("vantage.agent", "loaded");
        System.setProperty("vantage.agent.deploy", deployDir.toString());
        Weaver weaver = new Weaver(o.steps(), AgentHost.class.getClassLoader());
        inst.addTransformer(weaver, true);
        if (dynamic) {
            weaver.retransformLoaded(inst);
        }
        long pid = ProcessHandle.current().pid();
        LazyPlatform platform = new LazyPlatform(() -> {
            long start = System.nanoTime();
            try {
                EmbeddedPlatform p = boot(agentJar, home, deployDir, o);
                awaitHooks();
                System.setProperty("vantage.agent", "ready");
                String failure = weaver.failure();
                String unseen = weaver.unseen();
                System.err.println("vantage-agent: platform up in process " + pid + " in "
                        + (System.nanoTime() - start) / 1_000_000 + " ms" + (failure == null ? ""
                        : "; could not weave " + failure) + (unseen == null ? "" : "; not woven: " + unseen));
                return p;
            } catch (LaunchException | IOException e) {
                Bridge.release();
                System.setProperty("vantage.agent", "failed: " + e.getMessage());
                System.err.println("vantage-agent: the platform did not start (" + e.getMessage()
                        + "); the application runs unprofiled");
                throw new IllegalStateException(e.getMessage(), e);
            } catch (RuntimeException | LinkageError e) {
                Bridge.release();
                System.setProperty("vantage.agent", "failed: " + e);
                System.err.println("vantage-agent: the platform did not start (" + e + "); the application runs"
                        + " unprofiled");
                throw new IllegalStateException(String.valueOf(e.getMessage()), e);
            }
        }, deployDir);
        if (o.start() == AgentOptions.Start.STARTUP) {
            Bridge.holdUntilInstalled(STARTUP_HOLD_MILLIS);
            Thread boot = new Thread(() -> {
                try {
                    platform.get();
                } catch (IllegalStateException e) {
                    // said on standard error by the boot itself
                }
            }, "vantage-agent-boot");
            boot.setDaemon(true);
            boot.setContextClassLoader(AgentHost.class.getClassLoader());
            boot.start();
        } else {
            platform.waitForDemand();
            System.err.println("vantage-agent: loaded in process " + pid + "; profile it with 'vantage profile "
                    + pid + " start' or a .cfg in " + deployDir);
        }
        boolean startup = o.start() == AgentOptions.Start.STARTUP;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> exit(platform, home, startup), "vantage-agent-exit"));
    }

    /**
     * The application exits. A platform that is up ends every capture, writing it, and stops (its bundles finish what
     * they write); then the agent's own calls into the application's ONNX Runtime end, so that none is under way when
     * the process exits (ONNX Runtime's exit handlers would tear it down under them), and the process's folder goes.
     * A platform never booted costs the exit nothing but the folder's removal; one booting right now is left as it
     * is, its folder to the next agent's clean-up of dead processes' folders. An application that exits before the
     * start-up capture's platform is up is told that nothing was recorded, rather than nothing.
     */
    private static void exit(LazyPlatform platform, Path home, boolean startup) {
        platform.stopping();
        if (startup && platform.ifBooted() == null && !platform.failed()) {
            System.err.println("vantage-agent: the application exits before the platform is up: the start-up capture"
                    + " recorded nothing (the first call it records, an ONNX Runtime run or a step= method, waits for"
                    + " the platform)");
        }
        if (platform.booting()) {
            Bridge.closeOwn(EXIT_WRITE_MILLIS);
            return;
        }
        EmbeddedPlatform p = platform.ifBooted();
        if (p != null) {
            Bridge.exiting();
            p.stop(EXIT_WRITE_MILLIS);
        }
        Bridge.closeOwn(EXIT_WRITE_MILLIS);
        Folders.deleteTree(home);
    }

    /**
     * Waits for the agent's bundle to install its hooks, which it does once its services are there; ends a hold on
     * the application's calls if it does not within {@value #HOOKS_MILLIS} ms, which means it failed (and said why).
     */
    private static void awaitHooks() {
        long deadline = System.nanoTime() + HOOKS_MILLIS * 1_000_000L;
        while (Bridge.hooks() == null && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (Bridge.hooks() == null) {
            Bridge.release();
        }
    }

    /** Boots the platform with the agent jar's bundles. */
    private static EmbeddedPlatform boot(Path agentJar, Path home, Path deployDir, AgentOptions o)
            throws IOException, LaunchException {
        EmbeddedPlatform.removeFoldersOfDeadProcesses(home.getParent(), "vantage-agent-");
        List<EmbeddedPlatform.BundleJar> jars = new ArrayList<>();
        JarFile file = new JarFile(agentJar.toFile());
        try {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                JarEntry e = entries.nextElement();
                String name = e.getName();
                if (name.startsWith(BUNDLES) && name.endsWith(".jar")) {
                    jars.add(new EmbeddedPlatform.BundleJar(name.substring(BUNDLES.length()), () -> open(file, e)));
                }
            }
            jars.sort(java.util.Comparator.comparing(EmbeddedPlatform.BundleJar::name));
            return EmbeddedPlatform.start(home.resolve("felix"), deployDir, jars, Map.of(
                    "org.osgi.framework.system.packages.extra", "dev.vantage.agent.bootstrap;version=1.0.0",
                    "vantage.agent.options", o.text(),
                    // an application creates its sessions when it likes: a capture records those made while it runs
                    "vantage.ort.recordWithoutSessions", "true"), System.err);
        } finally {
            file.close();
        }
    }

    private static InputStream open(JarFile file, JarEntry entry) throws IOException {
        return file.getInputStream(entry);
    }
}
