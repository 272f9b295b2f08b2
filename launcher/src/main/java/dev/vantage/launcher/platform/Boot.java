package dev.vantage.launcher.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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

import dev.vantage.cli.Host;
import dev.vantage.cli.LaunchedCommand;
import dev.vantage.cli.LocalPlatforms;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.cli.BoardCommand;
import dev.vantage.cli.PlatformOptions;
import dev.vantage.cli.ServeCommand;
import dev.vantage.cli.ShellCommand;
import dev.vantage.launcher.Folders;
import dev.vantage.launcher.LaunchException;

/**
 * Boots Felix with one distribution and hands the command line it parsed to the platform's verbs bundle.
 *
 * <p>The framework exports the command tree's package ({@code dev.vantage.cli}) from the launcher's own class path,
 * so that the platform's bundles use the classes the launcher parsed with: no platform class is on the launcher's
 * class path, and the command line crosses as the parsed object itself. The launcher installs and starts every
 * bundle in {@code bundles/} and fails with a message naming the jar if one cannot be installed or started. Then it
 * registers a {@link LaunchedCommand} service (property {@code vantage.launcher=command}); the verbs bundle claims it,
 * runs the verb and hands back the exit code, or {@link LaunchedCommand#KEEP_RUNNING} once {@code serve} or
 * {@code shell} is up, after which the platform runs until stopped. Every run uses a fresh framework
 * cache in a temporary folder, removed at exit; configuration comes from {@code .cfg} files in the deploy
 * directory, which FileInstall reads at every start. A booted platform carries the system properties
 * {@code vantage.platform} (the distribution's name) and {@code vantage.platform.mode} ({@code serve},
 * {@code shell} or {@code command}), by which {@code vantage profile} finds it.
 */
public final class Boot {

    /** The code the verbs bundle hands back when the platform is to keep running ({@code serve}, {@code shell}). */
    public static final int KEEP_RUNNING = LaunchedCommand.KEEP_RUNNING;
    /** The prefix of the framework folders in the temporary directory: {@code vantage-felix-<pid>-...}. */
    public static final String STORAGE_PREFIX = "vantage-felix-";

    private static final long CLAIM_TIMEOUT_SECONDS = 60;
    /** How often, 100 ms apart, the launcher thread waiting for the command's answer outlives an exhausted heap. */
    private static final int OUT_OF_MEMORY_RETRIES = 600;
    private static final String GOGO_SHELL = "org.apache.felix.gogo.shell";

    /** How the platform runs. */
    private enum Mode {
        /** Run one verb, then stop with its exit code. */
        COMMAND,
        /** Run until interrupted, hot-deploying from the deploy directory. */
        SERVE,
        /** Like SERVE, with an interactive Gogo shell on the terminal. */
        SHELL
    }

    private final Path home;
    private final Mode mode;
    private final ParsedCommand command;
    private final PlatformOptions options;

    private Boot(Path home, ParsedCommand command) {
        this.home = home;
        this.command = command;
        if (command.host() == Host.SERVICE) {
            boolean shell = command.options() instanceof ShellCommand;
            this.mode = shell ? Mode.SHELL : Mode.SERVE;
            this.options = shell ? command.options(ShellCommand.class).platform()
                    : command.options() instanceof BoardCommand board ? board.platform()
                    : command.options(ServeCommand.class).platform();
        } else {
            this.mode = Mode.COMMAND;
            this.options = null;
        }
    }

    /**
     * Boots the platform of a distribution and runs a platform verb in it.
     *
     * @param home the distribution folder
     * @param command the checked command line, of a {@link Host#PLATFORM} or {@link Host#SERVICE} verb, which the
     *     platform runs as it is
     * @return the exit code
     * @throws IllegalArgumentException for a deploy directory or JMX flags that cannot be used (exit code 2)
     * @throws LaunchException if the platform cannot be brought up (exit code 1)
     */
    public static int run(Path home, ParsedCommand command) throws Exception {
        return new Boot(home, command).run();
    }

    private int run() throws Exception {
        // platform log records (System.Logger -> java.util.logging) as one line: level, logger, message
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s: %5$s%6$s%n");
        }
        Path deployDir = options != null && options.deployDir() != null ? options.deployDir()
                : home.resolve("deploy");
        RemoteJmx jmx = options == null ? null : RemoteJmx.check(options.jmxPort(), options.jmxPasswordFile(),
                options.jmxAccessFile(), options.jmxSslConfig());
        if (mode != Mode.COMMAND) {
            if (Files.exists(deployDir) && !Files.isDirectory(deployDir)) {
                throw new IllegalArgumentException("--deploy-dir " + deployDir + ": not a directory");
            }
            try {
                Files.createDirectories(deployDir);
            } catch (IOException e) {
                throw new IllegalArgumentException("--deploy-dir " + deployDir + ": cannot be made ("
                        + (e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                        : e.toString()) + ")");
            }
            String unsafe = DeployDirSafety.problem(deployDir, System.getProperty("user.name"));
            if (unsafe != null && !options.allowSharedDeployDir()) {
                throw new IllegalArgumentException(DeployDirSafety.refusal(unsafe, deployDir));
            }
            if (unsafe != null) {
                System.err.println("vantage: WARNING: " + unsafe + "; every jar placed there runs with this"
                        + " platform's rights (--allow-shared-deploy-dir)");
            }
        }
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
            Folders.deleteTree(storage);
        }, "vantage-shutdown"));

        Map<String, String> config = frameworkConfig(storage, deployDir);
        FileInstallLog.install(System.err, deployDir);
        // how 'vantage profile --list' and the attach client tell a Vantage platform from any other JVM
        System.setProperty("vantage.platform", home.getFileName().toString());
        System.setProperty("vantage.platform.mode", mode.name().toLowerCase(Locale.ROOT));

        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class).findFirst()
                .orElseThrow(() -> new LaunchException("no OSGi framework on the class path (lib/ is incomplete)"));
        Framework framework = factory.newFramework(config);
        framework.init();
        started[0] = framework;
        try {
            return runIn(framework, deployDir, jmx, Long.parseLong(config.get("felix.fileinstall.poll")));
        } catch (Exception e) {
            stop(framework);
            throw e;
        }
    }

    private Map<String, String> frameworkConfig(Path storage, Path deployDir) throws IOException {
        Map<String, String> config = new HashMap<>();
        loadProperties(home.resolve("conf/framework.properties"), config);
        config.put(Constants.FRAMEWORK_STORAGE, storage.resolve("cache").toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        if (mode == Mode.COMMAND) {
            // a one-shot command installs deploy/ itself (below) so that it sees deployed plugins before it runs;
            // FileInstall watches an empty folder, so it does not install them a second time
            Path empty = Files.createDirectories(storage.resolve("no-deploy"));
            config.put("felix.fileinstall.dir", empty.toString());
            config.put("felix.fileinstall.log.level", "1");
        } else {
            config.put("felix.fileinstall.dir", deployDir.toString());
        }
        config.putIfAbsent("felix.fileinstall.poll", "500");
        config.putIfAbsent("felix.fileinstall.noInitialDelay", "true");
        config.putIfAbsent("felix.fileinstall.enableConfigSave", "false");
        config.putIfAbsent("felix.fileinstall.log.level", "2");
        // FileInstall logs through java.util.logging, where FileInstallLog makes each record one line
        config.putIfAbsent("felix.fileinstall.log.default", "jul");
        // the platform shares the command tree with the launcher, so that it runs the very command parsed here
        String shared = sharedPackages();
        String extra = config.get(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA);
        config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, extra == null || extra.isBlank() ? shared
                : extra + "," + shared);
        if (mode != Mode.SHELL) {
            config.put("gosh.args", "--nointeractive");
        }
        httpService(config);
        System.getProperties().stringPropertyNames().stream()
                .filter(k -> k.startsWith("org.osgi.framework.") || k.startsWith("felix.") || k.startsWith("gosh."))
                .forEach(k -> config.put(k, System.getProperty(k)));
        return config;
    }

    /**
     * Felix's HTTP service listens only for {@code vantage board}, on its address and port; for every other verb it
     * stays off, so that a distribution with the board's feature opens no port when it runs or serves a workload.
     */
    private void httpService(Map<String, String> config) {
        if (command.options() instanceof BoardCommand board) {
            config.put("org.apache.felix.http.enable", "true");
            config.put("org.apache.felix.http.host", board.listenHost());
            config.put("org.osgi.service.http.port", String.valueOf(board.port()));
            config.putIfAbsent("org.apache.felix.http.jetty.sendServerHeader", "false");
            // Jetty's start-up lines stay out of the board's output; its warnings and errors still show
            if (System.getProperty("org.eclipse.jetty.LEVEL") == null) {
                System.setProperty("org.eclipse.jetty.LEVEL", "WARN");
                System.setProperty("org.eclipse.jetty.util.log.announce", "false");
            }
        } else {
            config.put("org.apache.felix.http.enable", "false");
        }
        config.put("org.apache.felix.https.enable", "false");
        // Felix's HTTP service logs through java.util.logging: its warnings show for the board (a port it cannot
        // open), and nothing for other verbs, whose output its "not started" line would otherwise open
        config.put("org.apache.felix.http.log.jul", "true");
        HTTP_LOG.setLevel(command.options() instanceof BoardCommand ? java.util.logging.Level.WARNING
                : java.util.logging.Level.SEVERE);
    }

    /** Felix HTTP's logger, held: java.util.logging keeps loggers only weakly, and with them their level. */
    private static final java.util.logging.Logger HTTP_LOG =
            java.util.logging.Logger.getLogger("org.apache.felix.http");

    private int runIn(Framework framework, Path deployDir, RemoteJmx jmx, long pollMillis) throws Exception {
        Path bundleDir = home.resolve("bundles");
        BundleContext context = framework.getBundleContext();
        List<Bundle> bundles = new ArrayList<>();
        for (Path jar : Folders.jars(bundleDir, true)) {
            bundles.add(install(context, jar, true));
        }
        if (mode == Mode.COMMAND) {
            for (Path jar : Folders.jars(deployDir, false)) {
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
            if (mode == Mode.SHELL && GOGO_SHELL.equals(b.getSymbolicName())) {
                console = b;
            } else {
                start(b, bundleDir);
            }
        }
        if (mode != Mode.COMMAND) {
            Path full = home.resolveSibling("full").resolve("bundles");
            new DeployChecker(deployDir, context, System.err, Files.isDirectory(full) ? full : null)
                    .start(pollMillis);
        }
        if (jmx != null) {
            // once the platform's MBeans exist: the remote port serves them, with authentication and TLS
            try {
                jmx.start();
            } catch (IllegalStateException e) {
                throw new LaunchException(e.getMessage());
            }
            System.out.printf("vantage: remote JMX on port %d, with authentication (%s) and TLS (%s)%n",
                    jmx.port, jmx.passwordFile, jmx.sslConfig);
        }
        int code = runCommand(context, framework);
        if (code != KEEP_RUNNING) {
            stop(framework);
            return code;
        }
        if (mode == Mode.SERVE) {
            System.out.printf("vantage: platform up: distribution %s, %d bundles; hot deploy from %s;"
                    + " Ctrl-C stops%n", home.getFileName(), bundles.size(), deployDir);
        }
        if (console != null) {
            start(console, bundleDir);
        }
        framework.waitForStop(0);
        return 0;
    }

    /** The packages the framework exports from the launcher's class path: the command tree's, at its version. */
    static String sharedPackages() {
        return LaunchedCommand.class.getPackageName() + ";version=" + LaunchedCommand.packageVersion();
    }

    /**
     * Hands the command to the verbs bundle and waits for its answer: an exit code, or {@link #KEEP_RUNNING}. A
     * platform stopped from inside (Gogo's {@code stop 0}) before it answers ends with 0.
     */
    private int runCommand(BundleContext context, Framework framework) throws Exception {
        CompletableFuture<Void> claimed = new CompletableFuture<>();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        LaunchedCommand launched = new LaunchedCommand() {
            @Override
            public ParsedCommand command() {
                return command;
            }

            @Override
            public void exit(int code) {
                exit.complete(code);
            }
        };
        if (command.options() instanceof BoardCommand) {
            // the board lists this machine's platforms and captures on them with the attach client of 'profile'
            context.registerService(LocalPlatforms.class, dev.vantage.launcher.attach.ProfileClient.service(), null);
        }
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("vantage.launcher", "command");
        ServiceRegistration<?> registration = context.registerService(LaunchedCommand.class.getName(),
                new ServiceFactory<LaunchedCommand>() {
                    @Override
                    public LaunchedCommand getService(Bundle bundle, ServiceRegistration<LaunchedCommand> reg) {
                        claimed.complete(null);
                        return launched;
                    }

                    @Override
                    public void ungetService(Bundle bundle, ServiceRegistration<LaunchedCommand> reg,
                            LaunchedCommand s) {
                    }
                }, props);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CLAIM_TIMEOUT_SECONDS);
        int outOfMemoryWhileWaiting = 0;
        while (true) {
            if (framework.getState() != Bundle.ACTIVE) {
                return 0;   // stopped from inside (Gogo's 'stop 0')
            }
            if (!claimed.isDone() && System.nanoTime() > deadline) {
                throw new LaunchException("nothing picked up the command within " + CLAIM_TIMEOUT_SECONDS
                        + " s: is bundle dev.vantage.verbs in this distribution, and are its components"
                        + " satisfied? ('vantage shell' then 'scr:list' shows them)");
            }
            try {
                int code = exit.get(100, TimeUnit.MILLISECONDS);
                if (code != KEEP_RUNNING) {
                    registration.unregister();
                }
                return code;
            } catch (TimeoutException e) {
                // not yet: look at the framework state and the deadline again
            } catch (OutOfMemoryError e) {
                // the heap is the command's, exhausted by its work: the command reports that itself and answers;
                // this thread only waits, so it waits on (a poll's interval at a time) while the command finishes
                outOfMemoryWhileWaiting++;
                if (outOfMemoryWhileWaiting > OUT_OF_MEMORY_RETRIES) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(100);
            } catch (ExecutionException e) {
                throw new LaunchException("the shell failed: " + e.getCause());
            }
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

    /**
     * Removes the framework folders of runs that were killed before their shutdown hook ran: folders named
     * {@code vantage-felix-<pid>-...} whose process is gone. Folders of running platforms, of other users and of
     * any other name are left alone.
     */
    static void removeFoldersOfDeadRuns(Path tmp) {
        removeFoldersOfDeadRuns(tmp, STORAGE_PREFIX);
    }

    /** As {@link #removeFoldersOfDeadRuns(Path)}, for folders named {@code <prefix><pid>-...}. */
    static void removeFoldersOfDeadRuns(Path tmp, String prefix) {
        try (Stream<Path> s = Files.list(tmp)) {
            for (Path dir : (Iterable<Path>) s::iterator) {
                String name = dir.getFileName().toString();
                if (!name.startsWith(prefix) || !Files.isDirectory(dir)) {
                    continue;
                }
                String rest = name.substring(prefix.length());
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
                    Folders.deleteTree(dir);
                }
            }
        } catch (IOException | SecurityException | UnsupportedOperationException | UncheckedIOException e) {
            // a folder that cannot be listed or owned, or that another launcher removes meanwhile, is nothing this
            // run must fix
        }
    }
}
