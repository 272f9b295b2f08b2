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
 * booted), weaves the classes to record ({@link Weaver}), and boots the platform on a daemon thread: Felix and the
 * agent distribution's bundles, nested in the agent jar under {@value #BUNDLES}, with the agent's own bundle, which
 * installs the hooks the woven calls reach and runs a capture at start-up when asked.
 *
 * <p>Lifecycle: the process's folder ({@code home}) holds the host's jars, Felix's cache and, unless another is
 * given, the deploy directory; a JVM shutdown hook asks the platform to end what it records (writing its traces),
 * then removes the folder. The platform's threads are daemons; a JVM exits as it would without the agent.
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
        // how 'vantage profile' tells a JVM it can profile: as a platform the launcher booted
        System.setProperty("vantage.platform", "agent");
        System.setProperty("vantage.platform.mode", dynamic ? "attached" : "javaagent");
        System.setProperty("vantage.agent", "starting");
        System.setProperty("vantage.agent.deploy", deployDir.toString());
        Weaver weaver = new Weaver(o.steps(), AgentHost.class.getClassLoader());
        inst.addTransformer(weaver, true);
        if (dynamic) {
            weaver.retransformLoaded(inst);
        }
        if (o.start() == AgentOptions.Start.STARTUP) {
            Bridge.holdUntilInstalled(STARTUP_HOLD_MILLIS);
        }
        EmbeddedPlatform[] platform = new EmbeddedPlatform[1];
        Thread boot = new Thread(() -> {
            try {
                EmbeddedPlatform p = boot(agentJar, home, deployDir, o);
                synchronized (platform) {
                    platform[0] = p;
                }
                awaitHooks();
                System.setProperty("vantage.agent", "ready");
                String failure = weaver.failure();
                System.err.println("vantage-agent: ready in process " + ProcessHandle.current().pid() + " ("
                        + (o.start() == AgentOptions.Start.STARTUP ? "capturing from start-up"
                        : "vantage profile " + ProcessHandle.current().pid() + " start") + "; deploy directory "
                        + deployDir + ")" + (failure == null ? "" : "; could not weave " + failure));
            } catch (LaunchException | IOException | RuntimeException | LinkageError e) {
                Bridge.release();
                System.setProperty("vantage.agent", "failed: " + e.getMessage());
                System.err.println("vantage-agent: the platform did not start (" + e.getMessage()
                        + "); the application runs unprofiled");
            }
        }, "vantage-agent-boot");
        boot.setDaemon(true);
        boot.setContextClassLoader(AgentHost.class.getClassLoader());
        boot.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> exit(boot, platform, home), "vantage-agent-exit"));
    }

    /**
     * The application exits: a platform still booting gets its time to finish (its threads may be inside the
     * application's ONNX Runtime, which must not be the case when the process exits), the hooks end every capture,
     * writing it, then the platform stops and the process's folder goes.
     */
    private static void exit(Thread boot, EmbeddedPlatform[] platform, Path home) {
        try {
            boot.join(EXIT_WRITE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Bridge.exiting();
        EmbeddedPlatform p;
        synchronized (platform) {
            p = platform[0];
        }
        if (p != null) {
            p.stop(EXIT_WRITE_MILLIS);
        }
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
