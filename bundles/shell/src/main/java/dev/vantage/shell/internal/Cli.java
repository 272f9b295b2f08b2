package dev.vantage.shell.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.ExporterInfo;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileBuilder;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * The verbs of the {@code vantage} command line. {@link #execute} returns the process exit code: 0 done, 1 the
 * work failed, 2 the command line is wrong (reported before any work starts), or {@link #KEEP_RUNNING} for the
 * verbs that leave the platform running ({@code serve}, {@code shell}).
 */
final class Cli {

    static final int KEEP_RUNNING = -1;

    static final String HELP = String.join("\n",
            "usage: vantage [--distribution NAME] <verb> [flags]",
            "",
            "Vantage: a modular profiler platform for tensor runtimes on the JVM.",
            "",
            "verbs:",
            "  run <workload>   run a workload, optionally profiling it (vantage run --help)",
            "  bundles          list the platform's bundles with version and state",
            "  devices          list the device backends: name, dispatch key, emulated or native, bundle",
            "  exporters        list the trace formats with the bundles that provide them",
            "  serve            run the platform until interrupted, hot-deploying bundles from the deploy dir;",
            "                   with --workload, serve a workload to profile on demand (vantage serve --help)",
            "  profile <pid>    start, check or stop a capture in a running platform (vantage profile --help)",
            "  shell            run the platform with an interactive Gogo shell",
            "  features         list the features a distribution can be assembled from",
            "  assemble         build a distribution of chosen features (vantage assemble --help)",
            "",
            "--distribution NAME picks the bundle set (full or minimal; default full).",
            "--version prints the framework, the JVM and every bundle with its version.",
            "'vantage <verb> --help' explains a verb.",
            "");

    private static final Map<String, String> VERB_HELP = Map.of(
            "bundles", "usage: vantage bundles\n\nLists every bundle: symbolic name, version and state.\n",
            "devices", "usage: vantage devices\n\nLists the device backends: device type, dispatch key, emulated or"
                    + " native, and the bundle with its version.\n",
            "exporters", "usage: vantage exporters\n\nLists the trace formats with the bundle and version that"
                    + " provide each.\n",
            "serve", Serve.HELP,
            "shell", "usage: vantage shell [--distribution full|minimal] [--deploy-dir DIR]\n\n"
                    + "Runs the platform with an interactive Gogo shell (try 'lb', 'scr:list', 'vantage:devices');"
                    + " 'exit' or 'stop 0' leaves.\n");

    private final Platform platform;
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    Cli(Platform platform, PrintStream out, PrintStream err, Map<String, String> env) {
        this(platform, out, err, env, false);
    }

    /**
     * @param terminal whether the output goes to a terminal: then a run shows a progress line (the step, the
     *     schedule's action, the export under way), which it leaves out of files and pipes
     */
    Cli(Platform platform, PrintStream out, PrintStream err, Map<String, String> env, boolean terminal) {
        this.platform = platform;
        this.out = out;
        this.err = err;
        this.env = env;
        this.progress = new Progress(err, terminal);
    }

    /** One line on a terminal, rewritten in place and cleared before anything else is printed. */
    static final class Progress {
        /** Carriage return, then ANSI erase-line. */
        static final String CLEAR = "\r\u001b[2K";
        private final PrintStream err;
        private final boolean enabled;
        private boolean shown;

        Progress(PrintStream err, boolean enabled) {
            this.err = err;
            this.enabled = enabled;
        }

        synchronized void show(String text) {
            if (enabled) {
                err.print(CLEAR + text);
                err.flush();
                shown = true;
            }
        }

        synchronized void clear() {
            if (shown) {
                err.print(CLEAR);
                err.flush();
                shown = false;
            }
        }

        /** A stream that clears the line before each write to {@code target}, for a workload's own output. */
        PrintStream clearingBefore(PrintStream target) {
            if (!enabled) {
                return target;
            }
            return new PrintStream(new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    clear();
                    target.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    clear();
                    target.write(b, off, len);
                }

                @Override
                public void flush() {
                    target.flush();
                }
            }, true, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private final Progress progress;
    /** The command's words, for the run registry. */
    private List<String> commandLine = List.of();

    int execute(List<String> args) {
        commandLine = new ArrayList<>();
        commandLine.add("vantage");
        commandLine.addAll(args);
        try {
            return dispatch(args);
        } catch (UsageException e) {
            err.println("vantage: " + e.getMessage());
            return 2;
        }
    }

    private int dispatch(List<String> args) throws UsageException {
        if (args.isEmpty()) {
            err.print(HELP);
            return 2;
        }
        String verb = args.get(0);
        List<String> rest = args.subList(1, args.size());
        if (verb.equals("--help") || verb.equals("-h") || verb.equals("help")) {
            out.print(HELP);
            return 0;
        }
        if (verb.equals("--version")) {
            noFlags(verb, rest);
            return version();
        }
        if (rest.contains("--help") || rest.contains("-h")) {
            String help = verb.equals("run")
                    ? RunOptions.HELP + "\nworkloads: " + String.join(", ", platform.workloads().keySet()) + "\n"
                    : VERB_HELP.get(verb);
            if (help == null) {
                throw new UsageException("unknown verb '" + verb + "'; verbs: run, bundles, devices, exporters,"
                        + " serve, shell");
            }
            out.print(help);
            return 0;
        }
        switch (verb) {
            case "run":
                return run(RunOptions.parse(rest, env));
            case "bundles":
                noFlags(verb, rest);
                return bundles();
            case "devices":
                noFlags(verb, rest);
                return devices();
            case "exporters":
                noFlags(verb, rest);
                return exporters();
            case "serve":
                return serve(rest);
            case "shell":
                noFlags(verb, rest);
                return KEEP_RUNNING;
            default:
                throw new UsageException("unknown verb '" + verb + "'; verbs: run, bundles, devices, exporters,"
                        + " serve, shell");
        }
    }

    private static void noFlags(String verb, List<String> rest) throws UsageException {
        if (!rest.isEmpty()) {
            throw new UsageException("unknown " + (rest.get(0).startsWith("-") ? "flag" : "argument") + " '"
                    + rest.get(0) + "' for '" + verb + "'");
        }
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
                .sorted(java.util.Comparator.comparing((Platform.BundleRow b) -> !b.symbolicName()
                        .startsWith("dev.vantage.")).thenComparing(Platform.BundleRow::symbolicName))
                .forEach(b -> out.printf("%-40s %s%n", b.symbolicName(), b.version()));
        return 0;
    }

    private int run(RunOptions o) throws UsageException {
        Workload workload = workload(o.workload);
        Device device = device(workload, o.workload, o.device);
        try {
            // the workload's own inputs (a model file, its shapes) are checked before anything starts
            workload.check(new Context(o, device, null, null));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        // only a profiled run needs the profiler: a plain run works while the core is away
        Profiler profiler = o.profile ? platform.profiler() : null;
        if (o.profile) {
            Set<String> formats = profiler.exporterFormats();
            for (String f : o.exports) {
                if (!formats.contains(f)) {
                    throw new UsageException("--profile-export " + f + ": no such exporter in this distribution;"
                            + " installed: " + (formats.isEmpty() ? "none" : String.join(", ", formats))
                            + " (deploy an exporter bundle into the deploy directory, or use --distribution full)");
                }
            }
            Map<Activity, String> deviceActivities = profiler.deviceActivities();
            Activity onDevice = deviceActivities.entrySet().stream().filter(e -> e.getValue().equals(device.type()))
                    .map(Map.Entry::getKey).findFirst().orElse(null);
            if (o.deviceActivity && onDevice == null) {
                throw new UsageException("--profile-activities GPU: the run is on " + device + ", which has no"
                        + " device activity; record CPU");
            }
            // a device that is no tensor backend (ONNX Runtime's ort) runs whatever the run device: its activity goes
            // with every run, and its source declines when it has nothing of the run's to record
            Set<String> backends = new java.util.HashSet<>();
            platform.devices().forEach(d -> backends.add(d.type()));
            Set<Activity> runtimes = new java.util.TreeSet<>();
            deviceActivities.forEach((a, type) -> {
                if (!backends.contains(type)) {
                    runtimes.add(a);
                }
            });
            Set<Activity> activities = new java.util.TreeSet<>();
            if (o.activities == null) {
                // cache-dit's default: the host and the device the run is on
                activities.add(Activity.CPU);
                if (onDevice != null) {
                    activities.add(onDevice);
                }
                activities.addAll(runtimes);
            } else {
                activities.addAll(o.activities);
                if (o.deviceActivity) {
                    activities.add(onDevice);
                }
                if (activities.isEmpty()) {
                    activities.add(Activity.CPU);
                }
            }
            o.activities = activities;
            if (o.sortBy == null) {
                // as cache-dit sorts a device run: by what the device spent itself
                o.sortBy = onDevice != null && activities.contains(onDevice) ? SortKey.SELF_DEVICE_TIME_TOTAL
                        : SortKey.SELF_CPU_TIME_TOTAL;
                o.sortByRecordedDevice = runtimes.stream().anyMatch(activities::contains)
                        && o.sortBy == SortKey.SELF_CPU_TIME_TOTAL;
            }
            for (Activity a : o.activities) {
                if (a.equals(Activity.CPU) || a.equals(Activity.MEM)) {
                    continue;
                }
                String type = deviceActivities.get(a);
                if (type == null) {
                    throw new UsageException("--profile-activities " + a + ": no installed device records it;"
                            + " available: " + profiler.availableActivities());
                }
                if (!type.equals(device.type()) && !runtimes.contains(a)) {
                    String instead = deviceActivities.entrySet().stream()
                            .filter(e -> e.getValue().equals(device.type())).map(e -> e.getKey().name())
                            .findFirst().map(n -> "record " + n + " for it").orElse("it has no device activity");
                    throw new UsageException("--profile-activities " + a + ": records " + type + " devices, but"
                            + " the run is on " + device + "; " + instead);
                }
            }
            // last of the checks: the probe may make the directory, which only a run that goes ahead keeps
            checkProfileDir(o.profileDir);
        }
        // memory flags are checked with the rest, before any work
        RunMemory memory = RunMemory.check(platform, o, device);
        Profile profile = null;
        int[] status = {0};
        // a profiled run adds its line to <profile-dir>/runs.jsonl at the end, whatever happens to the workload
        RunLine line = o.profile ? new RunLine(profiler, o, commandLine, device, platform.devices(), env) : null;
        if (memory != null) {
            memory.begin();
        }
        if (o.profile) {
            ProfileBuilder builder = profiler.profile().activities(o.activities).recordShapes(o.recordShapes)
                    .withStack(o.withStack).withFlops(o.withFlops)
                    .onTraceReady(cycle -> status[0] |= writeCycle(profiler, o, cycle, line));
            builder.schedule(o.schedule());
            if (o.maxEvents != null) {
                builder.maxEvents(o.maxEvents);
            }
            profile = builder.start();
            line.tag(profile);
            if (o.rank != null) {
                profile.addMetadata("rank", Integer.toString(o.rank));
                profile.addMetadata("world_size", Integer.toString(o.worldSize == null ? 1 : o.worldSize));
            }
            if (o.ddp) {
                // the collectives' backend on the run's device, for the trace's distributedInfo
                profile.addMetadata("distributed_backend", device.type() + ":"
                        + dev.vantage.tensor.distributed.CollectiveBackends.forDevice(device.type()).name());
            }
        }
        try {
            workload.run(new Context(o, device, profile, line));
            progress.clear();
        } catch (RuntimeException | OutOfMemoryError e) {
            progress.clear();
            // the trace of the cycle that failed is still written, with its [OutOfMemory] event
            if (profile != null) {
                profile.stop();
            }
            OutOfMemoryError oom = outOfMemory(e);
            if (oom == null) {
                err.println("vantage: workload '" + o.workload + "' failed: " + e);
            } else {
                reportOutOfMemory(oom);
            }
            if (memory != null) {
                memory.end(out, err, line);
            }
            if (line != null) {
                line.finish(true, out, err);
            }
            return 1;
        }
        if (profile != null) {
            try {
                profile.stop();
            } catch (OutOfMemoryError e) {
                // analysing the last cycle can need more heap than the run did
                progress.clear();
                reportOutOfMemory(e);
                if (memory != null) {
                    memory.end(out, err, line);
                }
                line.finish(true, out, err);
                return 1;
            }
            try {
                profile.cycle();
            } catch (IllegalStateException e) {
                err.println("vantage: no trace was written: the schedule recorded no step within --steps "
                        + o.steps);
            }
        }
        if (memory != null) {
            status[0] |= memory.end(out, err, line);
        }
        if (line != null) {
            status[0] |= line.finish(status[0] != 0, out, err);
        }
        return status[0];
    }

    /** One line for an out-of-memory error: a device's in torch's words, the JVM's with what to do about it. */
    private void reportOutOfMemory(OutOfMemoryError oom) {
        if (oom.getMessage() != null && oom.getMessage().contains(" out of memory. ")) {
            err.println("vantage: " + oom.getMessage());
        } else {
            err.println("vantage: the JVM ran out of memory (" + oom.getMessage() + "); give it more with"
                    + " VANTAGE_JAVA_OPTS, such as -Xmx4g or -XX:MaxDirectMemorySize=2g, or record fewer steps"
                    + " (--profile-active) or events (--max-events)");
        }
    }

    /** The out-of-memory error behind a failure, however deep a worker thread wrapped it; else null. */
    private static OutOfMemoryError outOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError oom) {
                return oom;
            }
        }
        return null;
    }

    /** The workload of a name, or a usage error listing the installed ones. */
    private Workload workload(String name) throws UsageException {
        Map<String, Workload> workloads = platform.workloads();
        Workload workload = workloads.get(name);
        if (workload == null) {
            throw new UsageException("unknown workload '" + name + "'; available: "
                    + String.join(", ", workloads.keySet()));
        }
        return workload;
    }

    /** The device of a {@code --device} value, installed and one the workload runs on; else a usage error. */
    private Device device(Workload workload, String name, String text) throws UsageException {
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

    private Serve serving;

    /** {@code serve}: keeps the platform running, serving a workload when one is named. */
    private int serve(List<String> args) throws UsageException {
        Serve.Options o = Serve.Options.parse(args);
        if (o.workload == null) {
            return KEEP_RUNNING;
        }
        Workload workload = workload(o.workload);
        Device device = device(workload, o.workload, o.device);
        Serve serve = new Serve(platform, workload, o, device, err);
        try {
            serve.check();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        serving = serve;
        serving.start();
        long pid = ProcessHandle.current().pid();
        out.println("serving " + o.workload + " on " + device + (o.threads > 0 ? " with " + o.threads + " threads"
                : "") + ", pid " + pid + "; profile it with: vantage profile " + pid + " start --duration 10s");
        return KEEP_RUNNING;
    }

    /** Stops a served workload, if any, at its next step. */
    void close() throws InterruptedException {
        Serve s = serving;
        if (s != null) {
            s.stop(10_000);
        }
    }

    /** What to open a written trace with, for the formats Vantage ships; empty for another exporter's. */
    static String howToOpen(String format, Path target, Path profileDir) {
        return switch (format) {
            case "chrome" -> " (open it in https://ui.perfetto.dev or chrome://tracing)";
            case "tensorboard" -> " (tensorboard --logdir " + profileDir + ")";
            case "csv" -> " (torch_npu's views, one csv file each)";
            default -> "";
        };
    }

    /**
     * Checks, before any work, that traces can be written into a directory: it is one, or can be made, and a probe
     * file can be created and deleted in it. Directories made for the check are removed again when it fails, so a
     * refused run leaves nothing behind.
     */
    static void checkProfileDir(Path dir) throws UsageException {
        Path target = dir.toAbsolutePath().normalize();
        if (Files.exists(target) && !Files.isDirectory(target)) {
            throw new UsageException("--profile-dir " + dir + ": not a directory");
        }
        List<Path> made = new ArrayList<>();
        try {
            for (Path p = target; p != null && !Files.exists(p); p = p.getParent()) {
                made.add(0, p);
            }
            for (Path p : made) {
                Files.createDirectory(p);
            }
            Path probe = Files.createTempFile(target, ".vantage-probe-", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            for (int i = made.size() - 1; i >= 0; i--) {
                try {
                    Files.deleteIfExists(made.get(i));
                } catch (IOException ignored) {
                    break;   // it was never made, or someone else wrote into it
                }
            }
            throw new UsageException("--profile-dir " + dir + ": cannot write traces there (" + reason(e) + ")");
        }
    }

    private static String reason(Exception e) {
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** Prints a completed cycle's table and writes its traces; returns 1 if an export failed, else 0. */
    private int writeCycle(Profiler profiler, RunOptions o, ProfileResult cycle, RunLine line) {
        progress.clear();
        boolean anyOp = cycle.events().stream()
                .anyMatch(e -> e.kind() == dev.vantage.profiler.trace.EventKind.CPU_OP || e.isDeviceWork());
        if (!anyOp) {
            // the last, partial cycle of a run that ended as it began: a trace of nothing is no trace
            err.println("vantage: cycle " + cycle.cycle() + " holds no op (the run ended at its start): no trace"
                    + " written for it");
            return 0;
        }
        KeyAverages averages = cycle.keyAverages(false, 0);
        // a runtime device (ort) that recorded work sorts the table by its time, as a run device's would
        SortKey sortBy = o.sortByRecordedDevice && !averages.deviceType().isEmpty() ? SortKey.SELF_DEVICE_TIME_TOTAL
                : o.sortBy;
        out.print(averages.table(new TableOptions(sortBy, o.rowLimit, o.percentiles, false)));
        String base = o.manyCycles() ? o.baseName() + "-cycle" + cycle.cycle() : o.baseName();
        int status = 0;
        for (String format : o.exports) {
            // TensorBoard's plugin groups the workers of a job by run directory: every rank writes into the
            // job's one run (each as its own <host>_<pid> worker), so the Distributed view sees them all
            String name = format.equals("tensorboard") ? o.profileName : o.baseName();
            Path target = o.manyCycles()
                    ? profiler.defaultTarget(format, o.profileDir, name, cycle.cycle())
                    : profiler.defaultTarget(format, o.profileDir, name);
            try {
                progress.show("vantage: exporting " + format + " to " + target + " ...");
                cycle.export(format, target);
                line.wrote(target, format);
                progress.clear();
                out.println("trace written: " + target + howToOpen(format, target, o.profileDir));
            } catch (IOException | RuntimeException e) {
                progress.clear();
                // one failing exporter must not cost the user the others
                err.println("vantage: exporting " + format + " to " + target + " failed: " + e.getMessage());
                status = 1;
            }
        }
        if (o.withStack) {
            Path stacks = o.profileDir.resolve(base + ".stacks");
            try {
                cycle.exportStacks(stacks, StackMetric.SELF_CPU_TIME_TOTAL);
                line.wrote(stacks, "stacks");
                out.println("stacks written: " + stacks);
            } catch (IOException | RuntimeException e) {
                err.println("vantage: writing stacks to " + stacks + " failed: " + e.getMessage());
                status = 1;
            }
        }
        if (o.activities.contains(Activity.MEM)) {
            status |= writeMemoryTimeline(o, cycle, base, line);
        }
        long dropped = cycle.trace().droppedEvents();
        if (dropped > 0) {
            err.println("vantage: " + dropped + " events were dropped because the event buffer limit was reached;"
                    + " the trace metadata says how many per thread");
        }
        return status;
    }

    /**
     * Writes the run device's memory timeline as {@code <base>.memory-timeline.html} and {@code .json} beside the
     * traces, as torch's {@code export_memory_timeline}; returns 1 if either failed.
     */
    private int writeMemoryTimeline(RunOptions o, ProfileResult cycle, String base, RunLine line) {
        String device = Device.parse(o.device).toString();
        int status = 0;
        for (String suffix : List.of(".memory-timeline.html", ".memory-timeline.json")) {
            Path target = o.profileDir.resolve(base + suffix);
            try {
                cycle.exportMemoryTimeline(target, device);
                line.wrote(target, "memory-timeline");
                out.println("memory timeline written: " + target);
            } catch (IOException | RuntimeException e) {
                err.println("vantage: writing the memory timeline to " + target + " failed: " + e.getMessage());
                status = 1;
            }
        }
        return status;
    }

    /** What a workload sees: the run's settings, and the profile's step. */
    private final class Context implements WorkloadContext {
        private final RunOptions options;
        private final Device device;
        private final Profile profile;
        /** The run registry's line of a profiled run, else null. */
        private final RunLine line;

        private final PrintStream workloadOut = progress.clearingBefore(out);
        private int stepsDone;

        Context(RunOptions options, Device device, Profile profile, RunLine line) {
            this.options = options;
            this.device = device;
            this.profile = profile;
            this.line = line;
        }

        @Override
        public int steps() {
            return options.steps;
        }

        @Override
        public long seed() {
            return options.seed;
        }

        @Override
        public int batchSize() {
            return options.batchSize;
        }

        @Override
        public String optimizer() {
            return options.optimizer;
        }

        @Override
        public int threads() {
            return options.threads;
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public PrintStream out() {
            return workloadOut;
        }

        @Override
        public boolean ddp() {
            return options.ddp;
        }

        @Override
        public java.nio.file.Path model() {
            return options.model;
        }

        @Override
        public int sequenceLength() {
            return options.seqLen;
        }

        @Override
        public Map<String, long[]> inputShapes() {
            return options.inputs;
        }

        @Override
        public void step() {
            if (line != null) {
                line.stepEnded();
            }
            if (profile != null) {
                profile.step();
            }
            // a run can be profiled on demand too, by attaching: iteration windows count its steps
            platform.markStep();
            stepsDone++;
            progress.show("vantage: step " + stepsDone + "/" + options.steps + (profile == null ? ""
                    : " (" + profile.currentAction().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + ")"));
        }
    }
}
