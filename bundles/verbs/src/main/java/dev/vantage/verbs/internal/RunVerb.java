package dev.vantage.verbs.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.vantage.cli.ProfileDirectory;
import dev.vantage.cli.RunCommand;
import dev.vantage.cli.TraceName;
import dev.vantage.cli.UsageException;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileBuilder;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.Workload;

/**
 * {@code vantage run <workload>}: checks what the command tree could not (the workload, the device, the activities
 * and exporters installed ({@link RunRecording}), the profile directory, the memory flags) before any work, then
 * runs the workload, stepping the profile with {@code --profile}; each completed cycle's table and traces are
 * {@link CycleOutput}'s. Exit codes: 0 done, 1 the work or an export failed, 2 refused before any work.
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
        RunRecording recording = o.profile() ? RunRecording.resolve(platform, profiler, o, device) : null;
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

    private int run(RunCommand o, Workload workload, Device device, Profiler profiler, RunRecording recording,
            RunMemory memory) {
        Profile profile = null;
        int[] status = {0};
        CycleOutput output = new CycleOutput(o, out, err, progress);
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
                    .onTraceReady(cycle -> status[0] |= output.write(profiler, recording, cycle, line));
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
}
