package dev.vantage.verbs.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import dev.vantage.cli.RunCommand;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.tensor.Device;

/**
 * What a profiled run writes for each completed cycle: torch's table on the output, the traces in every format asked
 * for, the stacks with {@code --profile-with-stack}, and the memory timeline when memory was recorded, each file
 * noted in the run's line of {@code runs.jsonl}. One failing exporter costs the user none of the others.
 */
final class CycleOutput {

    private final RunCommand o;
    private final PrintStream out;
    private final PrintStream err;
    private final Progress progress;

    CycleOutput(RunCommand o, PrintStream out, PrintStream err, Progress progress) {
        this.o = o;
        this.out = out;
        this.err = err;
        this.progress = progress;
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

    /** Prints a completed cycle's table and writes its traces; returns 1 if an export failed, else 0. */
    int write(Profiler profiler, RunRecording recording, ProfileResult cycle, RunLine line) {
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
            status |= writeMemoryTimeline(cycle, base, line);
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
     * The folder a cycle's memory timeline goes into: {@code <base>_memory-timeline} beside the traces. Trace readers
     * take every {@code .json} and {@code .gz} file of the folder they are pointed at for a trace (HTA takes each for
     * a rank's), so a profile folder holds no JSON file that is not a trace; in a folder of its own the timeline keeps
     * torch's names, whose suffix chooses the format.
     */
    static Path memoryTimelineFolder(Path profileDir, String base) {
        return profileDir.resolve(base + "_memory-timeline");
    }

    /**
     * Writes the run device's memory timeline as {@code <base>.memory-timeline.html} and {@code .json} in
     * {@link #memoryTimelineFolder}, as torch's {@code export_memory_timeline}; returns 1 if either failed.
     */
    private int writeMemoryTimeline(ProfileResult cycle, String base, RunLine line) {
        String device = Device.parse(o.run().device()).toString();
        Path folder = memoryTimelineFolder(o.profileDir(), base);
        int status = 0;
        for (String suffix : List.of(".memory-timeline.html", ".memory-timeline.json")) {
            Path target = folder.resolve(base + suffix);
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
