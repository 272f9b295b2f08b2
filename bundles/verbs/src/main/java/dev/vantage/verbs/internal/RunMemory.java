package dev.vantage.verbs.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import dev.vantage.cli.RunCommand;
import dev.vantage.cli.UsageException;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.MemoryTracker;
import dev.vantage.tensor.Device;

/**
 * What a run does with its device's memory: the cap of {@code --device-memory}, the allocator history behind
 * {@code --memory-snapshot} and behind the {@code MEM} activity on an accelerator (written as cache-dit writes it:
 * {@code <name>-rank<R>-memory-<time>.pickle} with the {@code memory_summary()} table in a {@code .txt} beside it),
 * and the peaks {@code --track-memory} prints. Everything is checked before the run starts and undone after it,
 * so a long-running platform keeps no cap or history from a run.
 */
final class RunMemory {

    /** The history each device keeps, as cache-dit asks torch for ({@code max_entries=100000}). */
    static final int HISTORY_ENTRIES = 100_000;

    private final MemoryAdmin memory;
    private final RunCommand options;
    private final String device;
    private final String type;
    private final boolean memProfile;
    /** Allocators of recorded devices that are no tensor backend (ONNX Runtime's ort:0), tracked with the run's. */
    private final java.util.List<String> runtimeDevices = new java.util.ArrayList<>();
    private boolean capped;
    private boolean recording;
    private MemoryTracker tracker;

    private RunMemory(MemoryAdmin memory, RunCommand options, Device device, boolean memProfile) {
        this.memory = memory;
        this.options = options;
        this.device = device.toString();
        this.type = device.type();
        this.memProfile = memProfile;
    }

    /**
     * Checks a run's memory flags against the installed allocators, before any work; returns null when the run
     * asks for nothing of its device's memory.
     */
    static RunMemory check(Platform platform, RunCommand o, RunRecording recording, Device device)
            throws UsageException {
        boolean accelerator = !device.type().equals("cpu");
        boolean memProfile = recording != null && accelerator && recording.activities().contains(Activity.MEM);
        if (o.deviceMemory() == null && o.memorySnapshot() == null && !o.trackMemory() && !memProfile) {
            return null;
        }
        if (!accelerator && o.deviceMemory() != null) {
            throw new UsageException("--device-memory caps an accelerator's memory; the run is on cpu, whose memory"
                    + " is the JVM's heap (set -Xmx in VANTAGE_JAVA_OPTS)");
        }
        if (!accelerator && o.memorySnapshot() != null) {
            throw new UsageException("--memory-snapshot records an accelerator allocator's history; the run is on"
                    + " cpu, which has none");
        }
        MemoryAdmin memory;
        try {
            memory = platform.memory();
        } catch (IllegalStateException e) {
            throw new UsageException("memory flags need the profiler core, and " + e.getMessage());
        }
        RunMemory m = new RunMemory(memory, o, device, memProfile);
        if (recording != null && o.trackMemory()) {
            // a runtime device (ort) reports its memory in its profile: its peaks are known when the profile recorded it
            java.util.Set<String> backends = new java.util.HashSet<>();
            platform.devices().forEach(d -> backends.add(d.type()));
            java.util.Set<String> recorded = new java.util.HashSet<>();
            platform.profiler().deviceActivities().forEach((a, t) -> {
                if (recording.activities().contains(a) && !backends.contains(t)) {
                    recorded.add(t);
                }
            });
            memory.devices().stream().filter(d -> recorded.contains(d.split(":")[0])).forEach(m.runtimeDevices::add);
        }
        try {
            memory.memoryStats(m.device);
            if (o.deviceMemory() != null) {
                // removing a cap changes nothing, and tells an allocator that cannot be capped
                memory.limitMemory(m.device, 0);
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            throw new UsageException((o.deviceMemory() != null ? "--device-memory: " : "") + e.getMessage());
        }
        if (o.memorySnapshot() != null) {
            checkFile(o.memorySnapshot());
        }
        return m;
    }

    private static void checkFile(Path file) throws UsageException {
        Path target = file.toAbsolutePath().normalize();
        Path dir = target.getParent();
        if (Files.isDirectory(target)) {
            throw new UsageException("--memory-snapshot " + file + ": is a directory");
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new UsageException("--memory-snapshot " + file + ": no directory " + dir);
        }
        if (!Files.isWritable(dir)) {
            throw new UsageException("--memory-snapshot " + file + ": cannot write in " + dir
                    + " (permission denied)");
        }
    }

    /** Applies the cap, starts the history and resets the peaks. */
    void begin() {
        if (options.deviceMemory() != null) {
            memory.limitMemory(device, options.deviceMemory());
            capped = true;
        }
        if (options.memorySnapshot() != null || memProfile) {
            try {
                memory.recordMemoryHistory(type, HISTORY_ENTRIES, true);
                recording = true;
            } catch (IllegalArgumentException e) {
                if (options.memorySnapshot() != null) {
                    throw e;
                }
                // MEM still records [memory] events; only the snapshot beside the trace is missing
            }
        }
        if (options.trackMemory()) {
            tracker = MemoryTracker.start(memory, trackedDevices().toArray(new String[0]));
            runtimeDevices.forEach(memory::resetPeakMemoryStats);
        }
    }

    /**
     * Writes the snapshots, prints the peaks, then lifts the cap and stops the history.
     *
     * @param line the run registry's line of a profiled run, told of each file written; null for a plain run
     * @return 1 if a file could not be written, else 0
     */
    int end(PrintStream out, PrintStream err, RunLine line) {
        int status = 0;
        try {
            if (recording && options.memorySnapshot() != null) {
                status |= dump(options.memorySnapshot(), out, err, line);
            }
            if (recording && memProfile) {
                String base = options.profileName() + "-rank" + (options.rank() == null ? 0 : options.rank()) + "-memory-"
                        + Instant.now().getEpochSecond();
                status |= dumpWithSummary(options.profileDir().resolve(base + ".pickle"),
                        options.profileDir().resolve(base + ".txt"), out, err, line);
            }
            if (tracker != null) {
                tracker.close();
                out.print(tracker.report());
                for (String d : runtimeDevices) {
                    // only a runtime that reported memory in this run's profile has peaks to print
                    java.util.Map<String, Long> v = memory.memoryStats(d).values();
                    if (v.containsKey("allocated_bytes.all.peak")) {
                        out.println("peak memory: " + new MemoryTracker.Peak(d, v.get("allocated_bytes.all.peak"),
                                v.getOrDefault("reserved_bytes.all.peak", 0L), memory.memoryCapacity(d)));
                    }
                }
            }
        } finally {
            if (capped) {
                memory.limitMemory(device, 0);
            }
            if (recording) {
                memory.recordMemoryHistory(type, 0, false);
            }
        }
        return status;
    }

    /** The run's device, and the host's allocator when the run is on an accelerator. */
    private java.util.List<String> trackedDevices() {
        java.util.List<String> devices = new java.util.ArrayList<>();
        devices.add(memory.devices().stream().filter(d -> d.equals(device) || (d + ":0").equals(device))
                .findFirst().orElse(device));
        if (!type.equals("cpu") && memory.devices().contains("cpu")) {
            devices.add("cpu");
        }
        return devices;
    }

    /** Writes the snapshot and the summary of one moment, so that they agree to the byte; returns 1 on failure. */
    private int dumpWithSummary(Path file, Path summary, PrintStream out, PrintStream err, RunLine line) {
        String text;
        try {
            text = memory.dumpMemorySnapshotAndSummary(type, file, device, false);
            if (line != null) {
                line.wrote(file, "memory-snapshot");
            }
            out.println("memory snapshot written: " + file + " (open it at https://pytorch.org/memory_viz)");
        } catch (IOException | RuntimeException e) {
            err.println("vantage: writing the memory snapshot to " + file + " failed: " + e.getMessage());
            return 1;
        }
        try {
            Files.writeString(summary, text);
            if (line != null) {
                line.wrote(summary, "memory-summary");
            }
            out.println("memory summary written: " + summary);
            return 0;
        } catch (IOException e) {
            err.println("vantage: writing the memory summary to " + summary + " failed: " + e.getMessage());
            return 1;
        }
    }

    private int dump(Path file, PrintStream out, PrintStream err, RunLine line) {
        try {
            memory.dumpMemorySnapshot(type, file);
            if (line != null) {
                line.wrote(file, "memory-snapshot");
            }
            out.println("memory snapshot written: " + file + (file.toString().endsWith(".json") ? ""
                    : " (open it at https://pytorch.org/memory_viz)"));
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("vantage: writing the memory snapshot to " + file + " failed: " + e.getMessage());
            return 1;
        }
    }
}
