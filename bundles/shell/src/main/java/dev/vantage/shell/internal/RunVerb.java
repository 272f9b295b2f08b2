package dev.vantage.shell.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.cli.ProfileDirectory;
import dev.vantage.cli.RunCommand;
import dev.vantage.cli.TraceName;
import dev.vantage.cli.UsageException;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileBuilder;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.Workload;

/**
 * {@code vantage run <workload>}: checks what the command tree could not (the workload, the device, the activities
 * and exporters installed, the profile directory, the memory flags) before any work, then runs the workload and,
 * with {@code --profile}, prints each completed cycle's table and writes its traces. Exit codes: 0 done, 1 the work
 * or an export failed, 2 refused before any work.
 */
final class RunVerb {

    private final Platform platform;
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    private final Progress progress;
    private final List<String> commandLine;
    private java.util.function.BooleanSupplier stopping = () -> false;
    private boolean reportedOutOfMemory;

    RunVerb(Platform platform, PrintStream out, PrintStream err, Map<String, String> env, Progress progress,
            List<String> commandLine) {
        this.platform = platform;
        this.out = out;
        this.err = err;
        this.env = env;
        this.progress = progress;
        this.commandLine = commandLine;
    }

    /** Ends the run at its next step once this says the platform is stopping (Ctrl-C), with one line. */
    RunVerb stopWhen(java.util.function.BooleanSupplier platformStopping) {
        this.stopping = platformStopping;
        return this;
    }

    /**
     * What the profile records and how its table is sorted, resolved against the installed devices;
     * {@code sortByRecordedDevice}: the default order follows a runtime device's time (ort) when that device recorded
     * work in a cycle.
     */
    record Recording(Set<Activity> activities, SortKey sortBy, boolean sortByRecordedDevice) {
    }

    /**
     * What a profiled run keeps per step at most until its line is written to {@code runs.jsonl}: the step's
     * record, its JSON and the copies of the line being built.
     */
    static final long BYTES_PER_STEP = 512;

    int run(RunCommand o) throws UsageException {
        Workload workload = Verbs.workload(platform, o.workload());
        Device device = Verbs.device(platform, workload, o.workload(), o.run().device());
        long heap = Runtime.getRuntime().maxMemory();
        Verbs.checkFlags(workload, o.workload(), o.run(), o.optimizer(), o.ddp(), heap);
        try {
            // the workload's own inputs (a model file, its shapes) are checked before anything starts
            workload.check(new StepContext(o.run(), o.steps(), o.optimizer(), o.ddp(), device,
                    new PrintStream(java.io.OutputStream.nullOutputStream(), true), platform, done -> {
                        throw new IllegalStateException("a workload's check() must not step");
                    }));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        // only a profiled run needs the profiler: a plain run works while the core is away
        Profiler profiler = o.profile() ? platform.profiler() : null;
        Recording recording = o.profile() ? recording(profiler, o, device) : null;
        if (o.profile()) {
            checkSteps(o.steps(), heap);
        }
        // memory flags are checked with the rest, before any work; they make nothing
        RunMemory memory = RunMemory.check(platform, o, recording, device);
        TraceName claimed = null;
        if (o.profile()) {
            // last of the checks: the probe may make the directory, which only a run that goes ahead keeps
            checkProfileDir(o.profileDir());
            if (o.claimsProfileName()) {
                String wanted = o.profileName();
                try {
                    claimed = TraceName.claim(o.profileDir().toAbsolutePath().normalize(), wanted);
                } catch (IOException e) {
                    throw new UsageException("--profile-dir " + o.profileDir() + ": cannot claim a trace name there ("
                            + reason(e) + ")");
                }
                o.useClaimedName(claimed);
                if (o.givenProfileName() && !claimed.name().equals(wanted)) {
                    err.println("vantage: --profile-name " + wanted + " is taken in " + o.profileDir()
                            + " (by an earlier or a running run): this run's files are named " + claimed.name());
                }
            }
        }
        try {
            return run(o, workload, device, profiler, recording, memory);
        } catch (OutOfMemoryError e) {
            // an exhausted heap is one line, however late in the run it strikes again
            if (!reportedOutOfMemory) {
                reportOutOfMemory(e);
            }
            return 1;
        } finally {
            if (claimed != null) {
                claimed.close();
            }
        }
    }

    /**
     * Refuses, for a profiled run, more steps than a quarter of the heap can keep records of until the run's line
     * is written, naming the limit.
     */
    static void checkSteps(int steps, long maxHeapBytes) throws UsageException {
        long most = maxHeapBytes / 4 / BYTES_PER_STEP;
        if (steps > most) {
            throw new UsageException("--steps " + steps + ": a profiled run keeps every step's time for its line in"
                    + " runs.jsonl, up to " + BYTES_PER_STEP + " bytes each, and a quarter of this JVM's heap ("
                    + Verbs.gigabytes(maxHeapBytes) + ") holds " + most + " of them; give at most " + most
                    + " steps, or more heap (VANTAGE_JAVA_OPTS=-Xmx...)");
        }
    }

    private int run(RunCommand o, Workload workload, Device device, Profiler profiler, Recording recording,
            RunMemory memory) {
        Profile profile = null;
        int[] status = {0};
        // a profiled run adds its line to <profile-dir>/runs.jsonl at the end, whatever happens to the workload
        RunLine line = o.profile() ? new RunLine(platform.memory(), platform.registry(), o, recording, commandLine,
                device, platform.devices(), env) : null;
        if (memory != null) {
            memory.begin();
        }
        if (o.profile()) {
            Map<String, Integer> n = o.schedule();
            ProfileBuilder builder = profiler.profile().activities(recording.activities())
                    .recordShapes(o.recordShapes()).withStack(o.withStack()).withFlops(o.withFlops())
                    .schedule(Schedule.of(n.get("wait"), n.get("warmup"), n.get("active"), n.get("repeat"),
                            n.get("skip_first")))
                    .onTraceReady(cycle -> status[0] |= writeCycle(profiler, o, recording, cycle, line));
            if (o.maxEvents() != null) {
                builder.maxEvents(o.maxEvents());
            }
            profile = builder.start();
            line.tag(profile);
            if (o.rank() != null) {
                profile.addMetadata("rank", Integer.toString(o.rank()));
                profile.addMetadata("world_size", Integer.toString(o.worldSize() == null ? 1 : o.worldSize()));
            }
            if (o.ddp()) {
                // the collectives' backend on the run's device, for the trace's distributedInfo
                profile.addMetadata("distributed_backend", device.type() + ":"
                        + dev.vantage.tensor.distributed.CollectiveBackends.forDevice(device.type()).name());
            }
        }
        Profile recordingProfile = profile;
        long[] stepsDone = {0};
        StepContext context = new StepContext(o.run(), o.steps(), o.optimizer(), o.ddp(), device,
                progress.clearingBefore(out), platform, done -> {
                    if (stopping.getAsBoolean()) {
                        throw new java.util.concurrent.CancellationException("the platform is stopping");
                    }
                    stepsDone[0] = done;
                    if (line != null) {
                        line.stepEnded();
                    }
                    if (recordingProfile != null) {
                        recordingProfile.step();
                    }
                    progress.show("vantage: step " + done + "/" + o.steps() + (recordingProfile == null ? ""
                            : " (" + recordingProfile.currentAction().name().toLowerCase(Locale.ROOT)
                            .replace('_', ' ') + ")"));
                });
        try {
            workload.run(context);
            progress.clear();
        } catch (RuntimeException | OutOfMemoryError e) {
            progress.clear();
            OutOfMemoryError oom = outOfMemory(e);
            // the trace of the cycle that failed is still written, with its [OutOfMemory] event
            if (profile != null) {
                try {
                    profile.stop();
                } catch (RuntimeException | OutOfMemoryError stopping) {
                    // the fault itself is the line to print; a trace the heap could not finish is only noted, and
                    // not at all when the heap is the fault (its line says to record fewer steps)
                    if (oom == null) {
                        err.println("vantage: the trace of the failing cycle was not written: " + stopping);
                    }
                }
            }
            if (e instanceof java.util.concurrent.CancellationException && stopping.getAsBoolean()) {
                err.println("vantage: run stopped after " + stepsDone[0] + " of " + o.steps() + " steps: the platform"
                        + " is stopping");
            } else if (oom == null) {
                err.println("vantage: workload '" + o.workload() + "' failed: " + e);
            } else {
                reportOutOfMemory(oom);
            }
            try {
                if (memory != null) {
                    memory.end(out, err, line);
                }
                if (line != null) {
                    line.finish(true, out, err);
                }
            } catch (OutOfMemoryError again) {
                // the heap the run exhausted could not hold its summary either: the line above said so already
                // (a registry line is appended whole or not at all)
                if (oom == null) {
                    reportOutOfMemory(again);
                }
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
                        + o.steps());
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

    /**
     * Resolves the activities (cache-dit's default: CPU and the run device's; {@code GPU} names the run device's)
     * and the sort key, and checks them and the exporters against what is installed.
     */
    private Recording recording(Profiler profiler, RunCommand o, Device device) throws UsageException {
        Set<String> formats = profiler.exporterFormats();
        for (String f : o.exports()) {
            if (!formats.contains(f)) {
                throw new UsageException("--profile-export " + f + ": no such exporter in this distribution;"
                        + " installed: " + (formats.isEmpty() ? "none" : String.join(", ", formats))
                        + " (deploy an exporter bundle into the deploy directory, or use --distribution full)");
            }
        }
        Map<Activity, String> deviceActivities = profiler.deviceActivities();
        Activity onDevice = deviceActivities.entrySet().stream().filter(e -> e.getValue().equals(device.type()))
                .map(Map.Entry::getKey).findFirst().orElse(null);
        // a device that is no tensor backend (ONNX Runtime's ort) runs whatever the run device: its activity goes
        // with every run, and its source declines when it has nothing of the run's to record
        Set<String> backends = new java.util.HashSet<>();
        platform.devices().forEach(d -> backends.add(d.type()));
        Set<Activity> runtimes = new TreeSet<>();
        deviceActivities.forEach((a, type) -> {
            if (!backends.contains(type)) {
                runtimes.add(a);
            }
        });
        Set<Activity> activities = new TreeSet<>();
        if (o.activities() == null) {
            activities.add(Activity.CPU);
            if (onDevice != null) {
                activities.add(onDevice);
            }
            activities.addAll(runtimes);
        } else {
            for (String name : o.activities()) {
                if (name.equalsIgnoreCase("GPU")) {
                    if (onDevice == null) {
                        throw new UsageException("--profile-activities GPU: the run is on " + device + ", which has"
                                + " no device activity; record CPU");
                    }
                    activities.add(onDevice);
                    continue;
                }
                try {
                    activities.add(Activity.parse(name));
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--profile-activities: " + e.getMessage());
                }
            }
        }
        for (Activity a : activities) {
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
        SortKey sortBy;
        boolean sortByRecordedDevice = false;
        if (o.sortBy() == null) {
            // as cache-dit sorts a device run: by what the device spent itself
            sortBy = onDevice != null && activities.contains(onDevice) ? SortKey.SELF_DEVICE_TIME_TOTAL
                    : SortKey.SELF_CPU_TIME_TOTAL;
            sortByRecordedDevice = sortBy == SortKey.SELF_CPU_TIME_TOTAL
                    && runtimes.stream().anyMatch(activities::contains);
        } else {
            try {
                sortBy = SortKey.parse(o.sortBy());
            } catch (IllegalArgumentException e) {
                throw new UsageException("--profile-sort-by: " + e.getMessage());
            }
        }
        return new Recording(Set.copyOf(activities), sortBy, sortByRecordedDevice);
    }

    /** One line for an out-of-memory error: a device's in torch's words, the JVM's with what to do about it. */
    private void reportOutOfMemory(OutOfMemoryError oom) {
        reportedOutOfMemory = true;
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

    /** What to open a written trace with, for the formats Vantage ships; empty for another exporter's. */
    static String howToOpen(String format, Path profileDir) {
        return switch (format) {
            case "chrome" -> " (open it in https://ui.perfetto.dev or chrome://tracing)";
            case "tensorboard" -> " (tensorboard --logdir " + profileDir + ")";
            case "csv" -> " (torch_npu's views, one csv file each)";
            default -> "";
        };
    }

    /**
     * Checks, before any work, that traces can be written into a directory ({@link ProfileDirectory#check}); a
     * directory made for the check stays only when it passes.
     */
    static void checkProfileDir(Path dir) throws UsageException {
        try {
            ProfileDirectory.check(dir);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--profile-dir " + e.getMessage());
        }
    }

    private static String reason(Exception e) {
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** Prints a completed cycle's table and writes its traces; returns 1 if an export failed, else 0. */
    private int writeCycle(Profiler profiler, RunCommand o, Recording recording, ProfileResult cycle, RunLine line) {
        progress.clear();
        if (!anyOp(cycle.trace())) {
            // the last, partial cycle of a run that ended as it began: a trace of nothing is no trace
            err.println("vantage: cycle " + cycle.cycle() + " holds no op (the run ended at its start): no trace"
                    + " written for it");
            return 0;
        }
        KeyAverages averages = cycle.keyAverages(false, 0);
        // a runtime device (ort) that recorded work sorts the table by its time, as a run device's would
        SortKey sortBy = recording.sortByRecordedDevice() && !averages.deviceType().isEmpty()
                ? SortKey.SELF_DEVICE_TIME_TOTAL : recording.sortBy();
        out.print(averages.table(new TableOptions(sortBy, o.rowLimit(), o.percentiles(), false)));
        String base = o.manyCycles() ? o.baseName() + "-cycle" + cycle.cycle() : o.baseName();
        int status = 0;
        for (String format : o.exports()) {
            // TensorBoard's plugin groups the workers of a job by run directory: every rank writes into the
            // job's one run (each as its own <host>_<pid> worker), so the Distributed view sees them all
            String name = format.equals("tensorboard") ? o.profileName() : o.baseName();
            Path target = o.manyCycles()
                    ? profiler.defaultTarget(format, o.profileDir(), name, cycle.cycle())
                    : profiler.defaultTarget(format, o.profileDir(), name);
            try {
                progress.show("vantage: exporting " + format + " to " + target + " ...");
                cycle.export(format, target);
                line.wrote(target, format);
                progress.clear();
                out.println("trace written: " + target + howToOpen(format, o.profileDir()));
            } catch (IOException | RuntimeException e) {
                progress.clear();
                // one failing exporter must not cost the user the others
                err.println("vantage: exporting " + format + " to " + target + " failed: " + e.getMessage());
                status = 1;
            }
        }
        if (o.withStack()) {
            Path stacks = o.profileDir().resolve(base + ".stacks");
            try {
                cycle.exportStacks(stacks, StackMetric.SELF_CPU_TIME_TOTAL);
                line.wrote(stacks, "stacks");
                out.println("stacks written: " + stacks);
            } catch (IOException | RuntimeException e) {
                err.println("vantage: writing stacks to " + stacks + " failed: " + e.getMessage());
                status = 1;
            }
        }
        if (recording.activities().contains(Activity.MEM)) {
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
     * Returns whether a trace holds an op or device work, reading its events through a cursor: no event object is
     * built (a cycle's {@code events()} would build one per event on the heap).
     */
    private static boolean anyOp(Trace trace) {
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.kind() == EventKind.CPU_OP || c.kind().isDeviceWork()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Writes the run device's memory timeline as {@code <base>.memory-timeline.html} and {@code .json} beside the
     * traces, as torch's {@code export_memory_timeline}; returns 1 if either failed.
     */
    private int writeMemoryTimeline(RunCommand o, ProfileResult cycle, String base, RunLine line) {
        String device = Device.parse(o.run().device()).toString();
        int status = 0;
        for (String suffix : List.of(".memory-timeline.html", ".memory-timeline.json")) {
            Path target = o.profileDir().resolve(base + suffix);
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
}
