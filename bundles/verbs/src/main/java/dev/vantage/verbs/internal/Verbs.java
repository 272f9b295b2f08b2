package dev.vantage.verbs.internal;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import dev.vantage.cli.BoardCommand;
import dev.vantage.cli.Cli;
import dev.vantage.cli.LaunchedCommand;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.cli.RunCommand;
import dev.vantage.cli.ServeCommand;
import dev.vantage.cli.UsageException;
import dev.vantage.cli.WorkloadOptions;
import dev.vantage.profiler.api.ExporterInfo;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.workload.Workload;

/**
 * The verbs that run in the platform: {@code run}, {@code workloads}, {@code bundles}, {@code devices},
 * {@code exporters}, {@code --version}, {@code serve} and {@code shell}. The command line comes parsed and checked by
 * the command tree ({@link Cli}): from the launcher as the object it parsed, from the Gogo shell as the words typed
 * there, parsed once here. What only the platform can check (the workload, the device, what is installed) is
 * checked here, before any work. {@link #execute} returns the exit code: 0 done, 1 the work failed, 2 refused, or
 * {@link #KEEP_RUNNING} once {@code serve} or {@code shell} is up.
 */
final class Verbs {

    /** The exit code that tells the launcher to keep the platform running. */
    static final int KEEP_RUNNING = LaunchedCommand.KEEP_RUNNING;

    private final Platform platform;
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    private final Progress progress;
    private Serve serving;
    /** Set when the platform starts stopping (Ctrl-C): a run ends at its next step, a served workload too. */
    private volatile boolean stopping;

    Verbs(Platform platform, PrintStream out, PrintStream err, Map<String, String> env) {
        this(platform, out, err, env, false);
    }

    /**
     * @param terminal whether the output goes to a terminal: then a run shows a progress line (the step, the
     *     schedule's action, the export under way), which it leaves out of files and pipes
     */
    Verbs(Platform platform, PrintStream out, PrintStream err, Map<String, String> env, boolean terminal) {
        this.platform = platform;
        this.out = out;
        this.err = err;
        this.env = env;
        this.progress = new Progress(err, terminal);
    }

    /** Runs a command line typed in the platform (the Gogo shell's): the words after {@code vantage}. */
    int execute(List<String> args) {
        ParsedCommand command = Cli.parseOrRefuse(args, env, err);
        return command == null ? 2 : execute(command);
    }

    /** Runs a command line the command tree parsed and checked: the launcher's, as it parsed it. */
    int execute(ParsedCommand command) {
        if (command.helpRequested()) {
            out.print(command.help());
            return 0;
        }
        try {
            return dispatch(command);
        } catch (UsageException e) {
            err.println("vantage: " + e.getMessage());
            return 2;
        }
    }

    private int dispatch(ParsedCommand command) throws UsageException {
        if (command.verb().equals(Cli.VERSION)) {
            return version();
        }
        List<String> commandLine = new ArrayList<>();
        commandLine.add("vantage");
        commandLine.addAll(command.args());
        return switch (command.name()) {
            case "run" -> new RunVerb(platform, out, err, env, progress, commandLine).stopWhen(() -> stopping)
                    .run(command.options(RunCommand.class));
            case "workloads" -> workloads();
            case "bundles" -> bundles();
            case "devices" -> devices();
            case "exporters" -> exporters();
            case "serve" -> serve(command.options(ServeCommand.class));
            case "shell" -> KEEP_RUNNING;
            case "board" -> board(command.options(BoardCommand.class));
            default -> throw new UsageException("'" + command.name() + "' does not run in the platform; run it with"
                    + " the vantage command");
        };
    }

    int workloads() {
        out.printf("%-20s %s%n", "WORKLOAD", "DESCRIPTION");
        platform.workloads().forEach((name, w) -> out.printf("%-20s %s%n", name, w.description()));
        return 0;
    }

    int bundles() {
        out.printf("%-4s %-42s %-22s %s%n", "ID", "SYMBOLIC NAME", "VERSION", "STATE");
        for (Platform.BundleRow b : platform.bundles()) {
            out.printf("%-4d %-42s %-22s %s%n", b.id(), b.symbolicName(), b.version(), b.state());
        }
        return 0;
    }

    int devices() {
        out.printf("%-10s %-14s %-9s %s%n", "DEVICE", "DISPATCH KEY", "KIND", "BUNDLE");
        for (DeviceInfo d : platform.devices()) {
            out.printf("%-10s %-14s %-9s %s %s%n", d.type(), d.dispatchKey(), d.emulated() ? "emulated" : "native",
                    d.bundle(), d.version());
        }
        return 0;
    }

    int exporters() {
        out.printf("%-12s %s%n", "FORMAT", "BUNDLE");
        for (ExporterInfo e : platform.profiler().exporters()) {
            out.printf("%-12s %s %s%n", e.format(), e.bundle(), e.version());
        }
        return 0;
    }

    /** The platform (framework and JVM) and every bundle with its version, Vantage's first. */
    private int version() {
        List<Platform.BundleRow> rows = platform.bundles();
        String framework = rows.stream().filter(b -> b.id() == 0).map(b -> b.symbolicName() + " " + b.version())
                .findFirst().orElse("an OSGi framework");
        out.println("Vantage on " + framework + ", Java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + ")");
        rows.stream().filter(b -> b.id() != 0)
                .sorted(Comparator.comparing((Platform.BundleRow b) -> !b.symbolicName().startsWith("dev.vantage."))
                        .thenComparing(Platform.BundleRow::symbolicName))
                .forEach(b -> out.printf("%-40s %s%n", b.symbolicName(), b.version()));
        return 0;
    }

    /** {@code serve}: keeps the platform running, serving a workload when one is named. */
    private int serve(ServeCommand o) throws UsageException {
        if (o.workload() == null) {
            return KEEP_RUNNING;
        }
        Workload workload = workload(platform, o.workload());
        Device device = device(platform, workload, o.workload(), o.run().device());
        checkFlags(workload, o.workload(), o.run(), "", false, Runtime.getRuntime().maxMemory());
        Serve serve = new Serve(platform, workload, o.run(), device, err);
        try {
            // the workload's own inputs (a model file, its shapes) are checked before serving starts
            serve.check();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        serving = serve;
        serving.start();
        long pid = ProcessHandle.current().pid();
        out.println("serving " + o.workload() + " on " + device + (o.run().threads() > 0 ? " with "
                + o.run().threads() + " threads" : "") + ", pid " + pid + "; profile it with: vantage profile " + pid
                + " start --duration 10s");
        return KEEP_RUNNING;
    }

    /** How long {@code board} waits for the board bundle and the HTTP service to come up. */
    static final long BOARD_START_MILLIS = 30_000;

    private int board(BoardCommand o) {
        if (platform.bundles().stream().noneMatch(b -> b.symbolicName().equals("dev.vantage.board"))) {
            err.println("vantage: board: this distribution has no board (the feature 'board'; the full distribution"
                    + " has it: ./vantage board, or vantage assemble --features core,board,...)");
            return 1;
        }
        String url;
        try {
            url = platform.awaitBoard(BOARD_START_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 1;
        }
        if (url == null) {
            err.println("vantage: board: the board did not come up in " + BOARD_START_MILLIS / 1000 + " s: port "
                    + o.port() + " on " + o.listenHost() + " could not be opened (see the HTTP service's message above)");
            return 1;
        }
        out.println("vantage board: serving " + o.logdir() + " at " + url + (o.loopback() ? ""
                : " (every request needs the token; Ctrl-C stops)"));
        if (o.loopback()) {
            out.println("open it in a browser on this machine; Ctrl-C stops");
        }
        return KEEP_RUNNING;
    }

    /** Stops a served workload, if any, at its next step. */
    void close() throws InterruptedException {
        stopping = true;
        Serve s = serving;
        if (s != null) {
            s.stop(10_000);
        }
    }

    /** The workload of a name, or a refusal listing the installed ones. */
    static Workload workload(Platform platform, String name) throws UsageException {
        Map<String, Workload> workloads = platform.workloads();
        Workload workload = workloads.get(name);
        if (workload == null) {
            throw new UsageException("unknown workload '" + name + "'; available: "
                    + String.join(", ", workloads.keySet()));
        }
        return workload;
    }

    /**
     * Refuses, before any work, a workload flag the workload does not take ({@link Workload#flags()}), and sizes
     * whose least heap ({@link Workload#minimumHeapBytes}) is more than this JVM may use, naming the flags, the
     * figures and the way out.
     *
     * @param optimizer the {@code --optimizer} given, or the empty string
     * @param maxHeapBytes the heap the JVM may use ({@link Runtime#maxMemory()})
     */
    static void checkFlags(Workload workload, String name, WorkloadOptions options, String optimizer, boolean ddp,
            long maxHeapBytes) throws UsageException {
        java.util.Set<RunFlag> takes = workload.flags();
        Map<RunFlag, Boolean> given = new java.util.EnumMap<>(RunFlag.class);
        given.put(RunFlag.BATCH_SIZE, options.batchSize() > 0);
        given.put(RunFlag.THREADS, options.threads() > 0);
        given.put(RunFlag.OPTIMIZER, !optimizer.isEmpty());
        given.put(RunFlag.DDP, ddp);
        given.put(RunFlag.MODEL, options.model() != null);
        given.put(RunFlag.SEQUENCE_LENGTH, options.sequenceLength() > 0);
        given.put(RunFlag.INPUT, !options.inputShapes().isEmpty());
        for (Map.Entry<RunFlag, Boolean> e : given.entrySet()) {
            if (e.getValue() && !takes.contains(e.getKey())) {
                List<String> flags = takes.stream().map(RunFlag::flag).toList();
                throw new UsageException(e.getKey().flag() + ": workload '" + name + "' does not take it; "
                        + (flags.isEmpty() ? "it takes no workload flag, only --steps, --seed and --device"
                        : "it takes " + String.join(", ", flags)));
            }
        }
        long needed = workload.minimumHeapBytes(options.batchSize(), options.threads());
        if (needed > maxHeapBytes) {
            List<String> sizes = new ArrayList<>();
            if (options.batchSize() > 0) {
                sizes.add("--batch-size " + options.batchSize());
            }
            if (options.threads() > 0) {
                sizes.add("--threads " + options.threads());
            }
            String what = sizes.isEmpty() ? "its default sizes" : String.join(" ", sizes);
            if (needed == Long.MAX_VALUE) {
                throw new UsageException(what + ": workload '" + name + "' cannot hold a batch that large in any"
                        + " heap (a tensor holds at most " + Integer.MAX_VALUE + " elements); give a smaller"
                        + " --batch-size");
            }
            throw new UsageException(what + ": workload '" + name + "' needs at least " + gigabytes(needed)
                    + " of heap for it, and this JVM may use " + gigabytes(maxHeapBytes) + "; give "
                    + (sizes.isEmpty() ? "more heap" : "smaller sizes or more heap")
                    + " (VANTAGE_JAVA_OPTS=-Xmx...)");
        }
    }

    /** Bytes as GB with one decimal, or MB below a gigabyte, as a limit is named in a refusal. */
    static String gigabytes(long bytes) {
        return bytes >= 1L << 30 ? String.format(java.util.Locale.ROOT, "%.1f GB", bytes / (double) (1L << 30))
                : String.format(java.util.Locale.ROOT, "%.1f MB", bytes / (double) (1L << 20));
    }

    /** The device of a {@code --device} value, installed and one the workload runs on; else a refusal. */
    static Device device(Platform platform, Workload workload, String name, String text) throws UsageException {
        Device device;
        try {
            device = Device.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--device: " + e.getMessage());
        }
        List<String> types = new ArrayList<>();
        platform.devices().forEach(d -> types.add(d.type()));
        if (!types.contains(device.type())) {
            throw new UsageException("--device " + text + ": no such device backend; installed: "
                    + String.join(", ", types));
        }
        if (!workload.supports(device)) {
            List<String> supported = types.stream().filter(t -> workload.supports(new Device(t, 0))).toList();
            throw new UsageException("--device " + text + ": workload '" + name + "' does not run on "
                    + device.type() + "; it runs on " + (supported.isEmpty() ? "no installed device"
                    : String.join(", ", supported)));
        }
        return device;
    }
}
