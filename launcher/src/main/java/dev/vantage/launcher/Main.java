package dev.vantage.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceFactory;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.wiring.BundleRevision;

/**
 * Boots Felix with one Vantage distribution and runs a command in it.
 *
 * <p>A distribution is a folder holding this jar, {@code lib/} (Felix), {@code bundles/} (the resolved bundle
 * set), {@code conf/framework.properties} and {@code deploy/}. Sibling folders are other distributions, chosen with
 * {@code --distribution NAME}. The launcher installs and starts every bundle in {@code bundles/} and fails with a
 * message naming the jar if one cannot be installed or started. Then it hands the command line to the platform's
 * shell bundle through a service of JDK type ({@link IntConsumer}, properties {@code vantage.launcher=command} and
 * {@code vantage.args}), so no platform class is on this class path, and exits with the code the shell hands back.
 * {@code serve} and {@code shell} run until interrupted, with FileInstall watching the deploy directory. Every run
 * uses a fresh framework cache in a temporary folder, removed at exit; configuration comes from {@code .cfg} files
 * in the deploy directory, which FileInstall reads at every start.
 *
 * <p>{@code features}, {@code assemble}, {@code profile}, {@code launch} and the analysis verbs {@code runs},
 * {@code compare}, {@code report} and {@code analyze} ({@link LauncherArgs#TOOL_VERBS}) run here without booting
 * the platform; {@code launch} starts ranks that each run this jar with {@code run}. A booted
 * platform carries the system properties {@code vantage.platform} (the distribution's name) and
 * {@code vantage.platform.mode} ({@code serve}, {@code shell} or {@code command}), by which {@code vantage profile}
 * finds it.
 */
public final class Main {

    private static final long CLAIM_TIMEOUT_SECONDS = 60;
    private static final String GOGO_SHELL = "org.apache.felix.gogo.shell";

    private Main() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = run(args);
        } catch (IllegalArgumentException e) {
            System.err.println("vantage: " + e.getMessage());
            code = 2;
        } catch (LaunchException e) {
            System.err.println("vantage: " + e.getMessage());
            code = 1;
        } catch (Exception e) {
            System.err.println("vantage: the platform failed: " + e);
            code = 1;
        }
        System.exit(code);
    }

    /** A failure to bring the platform up, with a message for the user. */
    static final class LaunchException extends Exception {
        LaunchException(String message) {
            super(message);
        }
    }

    static int run(String[] args) throws Exception {
        LauncherArgs parsed = LauncherArgs.parse(args);
        // platform log records (System.Logger -> java.util.logging) as one line: level, logger, message
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s: %5$s%6$s%n");
        }
        Path home = distributionHome(parsed.distribution);
        if (parsed.mode == LauncherArgs.Mode.TOOL) {
            List<String> all = parsed.platformArgs;
            if (all.indexOf(parsed.verb) > 0) {
                throw new IllegalArgumentException("unknown flag '" + all.get(0) + "' before '" + parsed.verb + "'");
            }
            List<String> rest = all.subList(1, all.size());
            if (parsed.verb.equals("profile")) {
                return ProfileClient.run(rest, System.out, System.err);
            }
            if (parsed.verb.equals("launch")) {
                return Launch.run(rest, parsed.distribution, System.out, System.err);
            }
            if (LauncherArgs.ANALYSIS_VERBS.contains(parsed.verb)) {
                return AnalysisTools.run(home, parsed.verb, rest, System.out, System.err);
            }
            // features come from, and are resolved against, the full distribution when it is there
            Path full = home.resolveSibling("full");
            Path source = Files.isDirectory(full.resolve("bundles")) ? full : home;
            if (parsed.verb.equals("features")) {
                if (!rest.isEmpty()) {
                    throw new IllegalArgumentException("'features' takes no arguments");
                }
                return Assemble.features(source, System.out);
            }
            Path launcherJar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Assemble.assemble(rest, source, launcherJar, System.out);
        }
        Path bundleDir = home.resolve("bundles");
        Path deployDir = parsed.deployDir != null ? parsed.deployDir : home.resolve("deploy");
        // named after this process, so that a later run can tell the folders of killed runs and remove them
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        removeFoldersOfDeadRuns(tmp);
        Path storage = Files.createTempDirectory(tmp, STORAGE_PREFIX + ProcessHandle.current().pid() + "-");
        Framework[] started = new Framework[1];
        // one hook, in order: the framework stops (its bundles finish and close their files), then its folder goes
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (started[0] != null) {
                stop(started[0]);
            }
            deleteTree(storage);
        }, "vantage-shutdown"));

        Map<String, String> config = new HashMap<>();
        loadProperties(home.resolve("conf/framework.properties"), config);
        config.put(Constants.FRAMEWORK_STORAGE, storage.resolve("cache").toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        if (parsed.mode == LauncherArgs.Mode.COMMAND) {
            // a one-shot command installs deploy/ itself (below) so that it sees deployed plugins before it runs;
            // FileInstall watches an empty folder, so it does not install them a second time
            Path empty = Files.createDirectories(storage.resolve("no-deploy"));
            config.put("felix.fileinstall.dir", empty.toString());
            config.put("felix.fileinstall.log.level", "1");
        } else {
            Files.createDirectories(deployDir);
            String unsafe = DeployDirSafety.problem(deployDir, System.getProperty("user.name"));
            if (unsafe != null && !parsed.allowSharedDeployDir) {
                throw new IllegalArgumentException(DeployDirSafety.refusal(unsafe, deployDir));
            }
            if (unsafe != null) {
                System.err.println("vantage: WARNING: " + unsafe + "; every jar placed there runs with this"
                        + " platform's rights (--allow-shared-deploy-dir)");
            }
            config.put("felix.fileinstall.dir", deployDir.toString());
        }
        config.putIfAbsent("felix.fileinstall.poll", "500");
        config.putIfAbsent("felix.fileinstall.noInitialDelay", "true");
        config.putIfAbsent("felix.fileinstall.enableConfigSave", "false");
        config.putIfAbsent("felix.fileinstall.log.level", "2");
        if (parsed.mode != LauncherArgs.Mode.SHELL) {
            config.put("gosh.args", "--nointeractive");
        }
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("org.osgi.framework.") || k.startsWith("felix.") || k.startsWith("gosh."))
                .forEach(k -> config.put(k, System.getProperty(k)));

        // how 'vantage profile --list' and the attach client tell a Vantage platform from any other JVM
        System.setProperty("vantage.platform", home.getFileName().toString());
        System.setProperty("vantage.platform.mode", parsed.mode.name().toLowerCase(Locale.ROOT));

        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new LaunchException("no OSGi framework on the class path (lib/ is incomplete)"));
        Framework framework = factory.newFramework(config);
        framework.init();
        started[0] = framework;
        try {
            BundleContext context = framework.getBundleContext();
            List<Bundle> bundles = new ArrayList<>();
            for (Path jar : jars(bundleDir, true)) {
                bundles.add(install(context, jar, true));
            }
            if (parsed.mode == LauncherArgs.Mode.COMMAND) {
                for (Path jar : jars(deployDir, false)) {
                    String problem = DeployChecker.jarProblem(jar);
                    if (problem != null) {
                        System.err.println("vantage: skipped: " + jar + ": " + problem);
                        continue;
                    }
                    Bundle b = install(context, jar, false);
                    if (b != null) {
                        bundles.add(b);
                    }
                }
            }
            framework.start();
            // the interactive Gogo console starts last, once the platform's commands exist
            Bundle console = null;
            for (Bundle b : bundles) {
                if (parsed.mode == LauncherArgs.Mode.SHELL && GOGO_SHELL.equals(b.getSymbolicName())) {
                    console = b;
                } else {
                    start(b, bundleDir);
                }
            }
            if (parsed.mode != LauncherArgs.Mode.COMMAND) {
                Path full = home.resolveSibling("full").resolve("bundles");
                new DeployChecker(deployDir, context, System.err, Files.isDirectory(full) ? full : null)
                        .start(Long.parseLong(config.get("felix.fileinstall.poll")));
            }
            if (parsed.jmx != null) {
                // once the platform's MBeans exist: the remote port serves them, with authentication and TLS
                try {
                    parsed.jmx.start();
                } catch (IllegalStateException e) {
                    throw new LaunchException(e.getMessage());
                }
                System.out.printf("vantage: remote JMX on port %d, with authentication (%s) and TLS (%s)%n",
                        parsed.jmx.port, parsed.jmx.passwordFile, parsed.jmx.sslConfig);
            }
            if (parsed.mode == LauncherArgs.Mode.SERVE) {
                System.out.printf("vantage: platform up: distribution %s, %d bundles; hot deploy from %s;"
                        + " Ctrl-C stops%n", home.getFileName(), bundles.size(), deployDir);
            }
            int code = runCommand(context, framework, parsed);
            if (console != null) {
                start(console, bundleDir);
            }
            if (code >= 0) {
                stop(framework);
                return code;
            }
            framework.waitForStop(0);
            return 0;
        } catch (Exception e) {
            stop(framework);
            throw e;
        }
    }

    /** Hands the command to the shell bundle; returns its exit code, or -1 for serve and shell. */
    private static int runCommand(BundleContext context, Framework framework, LauncherArgs parsed)
            throws Exception {
        CompletableFuture<Void> claimed = new CompletableFuture<>();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        IntConsumer exitHandler = exit::complete;
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("vantage.launcher", "command");
        props.put("vantage.args", parsed.platformArgs.toArray(new String[0]));
        ServiceRegistration<?> registration = context.registerService(IntConsumer.class.getName(),
                new ServiceFactory<IntConsumer>() {
                    @Override
                    public IntConsumer getService(Bundle bundle, ServiceRegistration<IntConsumer> reg) {
                        claimed.complete(null);
                        return exitHandler;
                    }

                    @Override
                    public void ungetService(Bundle bundle, ServiceRegistration<IntConsumer> reg, IntConsumer s) {
                    }
                }, props);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLAIM_TIMEOUT_SECONDS);
        while (!claimed.isDone()) {
            if (framework.getState() != Bundle.ACTIVE) {
                return 0;   // stopped from inside (Gogo's 'stop 0') before the command ran
            }
            if (System.nanoTime() > deadline) {
                throw new LaunchException("no shell picked up the command within " + CLAIM_TIMEOUT_SECONDS
                    + " s: is bundle dev.vantage.shell in this distribution, and are its components satisfied?"
                    + " ('vantage shell' then 'scr:list' shows them)");
            }
            try {
                claimed.get(100, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // not yet: look at the framework state and the deadline again
            }
        }
        if (parsed.mode != LauncherArgs.Mode.COMMAND) {
            return -1;
        }
        int code = exit.get();
        registration.unregister();
        return code;
    }

    /** Returns the distribution folder: the one holding this jar, or a sibling named by --distribution. */
    static Path distributionHome(String name) throws LaunchException {
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

    private static Path ownHome() throws LaunchException {
        String override = System.getProperty("vantage.home");
        if (override != null) {
            return Path.of(override).toAbsolutePath().normalize();
        }
        try {
            Path jar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().toAbsolutePath().normalize();
        } catch (URISyntaxException e) {
            throw new LaunchException("cannot tell where launcher.jar is: " + e.getMessage());
        }
    }

    static List<Path> jars(Path dir, boolean required) throws IOException, LaunchException {
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

    private static Bundle install(BundleContext context, Path jar, boolean required) throws LaunchException {
        try {
            return context.installBundle(jar.toUri().toString());
        } catch (BundleException | RuntimeException e) {
            String message = "cannot install bundle " + jar + ": " + e.getMessage();
            if (required) {
                throw new LaunchException(message);
            }
            System.err.println("vantage: skipped: " + message);
            return null;
        }
    }

    private static void start(Bundle bundle, Path bundleDir) throws LaunchException {
        if ((bundle.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0) {
            return;
        }
        try {
            bundle.start();
        } catch (BundleException | RuntimeException e) {
            String where = bundle.getLocation().replaceFirst("^file:", "");
            if (!where.startsWith(bundleDir.toUri().getPath())) {
                System.err.println("vantage: skipped: bundle " + bundle.getSymbolicName() + " (" + where
                        + ") failed to start: " + e.getMessage());
                return;
            }
            throw new LaunchException("bundle " + bundle.getSymbolicName() + " (" + where + ") failed to start: "
                    + e.getMessage());
        }
    }

    private static void stop(Framework framework) {
        try {
            if ((framework.getState() & (Bundle.STARTING | Bundle.ACTIVE)) != 0) {
                framework.stop();
            }
            framework.waitForStop(15_000);
        } catch (BundleException | InterruptedException e) {
            System.err.println("vantage: stopping the platform failed: " + e);
        }
    }

    private static void loadProperties(Path file, Map<String, String> into) throws IOException {
        if (Files.isRegularFile(file)) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(file)) {
                p.load(in);
            }
            p.stringPropertyNames().forEach(k -> into.put(k, p.getProperty(k)));
        }
    }

    static final String STORAGE_PREFIX = "vantage-felix-";

    /**
     * Removes the framework folders of runs that were killed before their shutdown hook ran: folders named
     * {@code vantage-felix-<pid>-...} whose process is gone. Folders of running platforms, of other users and of
     * any other name are left alone.
     */
    static void removeFoldersOfDeadRuns(Path tmp) {
        try (Stream<Path> s = Files.list(tmp)) {
            for (Path dir : (Iterable<Path>) s::iterator) {
                String name = dir.getFileName().toString();
                if (!name.startsWith(STORAGE_PREFIX) || !Files.isDirectory(dir)) {
                    continue;
                }
                String rest = name.substring(STORAGE_PREFIX.length());
                int dash = rest.indexOf('-');
                long pid;
                try {
                    pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue;   // not one this launcher named
                }
                boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
                if (!alive && Files.isWritable(dir)
                        && Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                    deleteTree(dir);
                }
            }
        } catch (IOException | SecurityException | UnsupportedOperationException | UncheckedIOException e) {
            // a folder that cannot be listed or owned, or that another launcher removes meanwhile, is nothing this
            // run must fix
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (UncheckedIOException e) {
            // another launcher removing the same leftover folder at the same time (the ranks of a launch start
            // together): what is gone is gone, whoever removed it
            if (!(e.getCause() instanceof java.nio.file.NoSuchFileException)) {
                System.err.println("vantage: could not remove " + root + ": " + e.getCause().getMessage());
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // removed by another launcher meanwhile
        } catch (IOException e) {
            System.err.println("vantage: could not remove " + root + ": " + e.getMessage());
        }
    }
}
