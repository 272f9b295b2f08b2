package dev.vantage.verbs.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.cli.RunCommand;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.RunRecord;
import dev.vantage.profiler.spi.RunRegistry;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DeviceInfo;

/**
 * What a profiled {@code vantage run} tells the run registry: its id (also in every trace's metadata as
 * {@code vantage.run_id}, with the launch's {@code vantage.job_id}), its steps with their durations (and, when the
 * {@code MEM} activity records, the device's allocated bytes and peak at each step's end), and the files it
 * wrote. {@link #finish} hands it to the run registry, which appends its line to {@code <profile-dir>/runs.jsonl}.
 * Used from the run's thread only.
 */
final class RunLine {

    /** The environment variable by which {@code vantage launch} gives its ranks one job id. */
    static final String JOB_ID_VARIABLE = "VANTAGE_JOB_ID";

    private final MemoryAdmin memory;
    private final RunRegistry registry;
    private final RunCommand options;
    private final RunRecording recording;
    private final List<String> commandLine;
    private final RunRecord.Device device;
    /** The allocator's name of the run device when its memory is recorded per step, else null. */
    private final String memoryDevice;
    private final String runId = RunRecord.newId();
    private final String jobId;
    private final long startEpochNanos = epochNanos();
    private long lastStepNanos = System.nanoTime();
    private final List<RunRecord.Step> steps = new ArrayList<>();
    private final List<RunRecord.Artifact> artifacts = new ArrayList<>();

    RunLine(MemoryAdmin memory, RunRegistry registry, RunCommand options, RunRecording recording,
            List<String> commandLine, Device device, List<DeviceInfo> installed, Map<String, String> env) {
        this.memory = memory;
        this.registry = registry;
        this.options = options;
        this.recording = recording;
        this.commandLine = commandLine;
        String job = env.get(JOB_ID_VARIABLE);
        this.jobId = RunRecord.isId(job) ? job : null;
        String name = device.toString();
        String allocator = memory.devices().stream().filter(d -> d.equals(name) || (d + ":0").equals(name))
                .findFirst().orElse(null);
        Boolean emulated = installed.stream().filter(d -> d.type().equals(device.type())).map(DeviceInfo::emulated)
                .findFirst().orElse(null);
        long capacity = allocator == null ? 0 : memory.memoryCapacity(allocator);
        this.device = new RunRecord.Device(name, emulated, capacity > 0 ? capacity : null);
        this.memoryDevice = recording.activities().contains(Activity.MEM) ? allocator : null;
    }

    /** Puts the run's id, and the launch's job id, into the profile's metadata. */
    void tag(Profile profile) {
        profile.addMetadata("vantage.run_id", runId);
        if (jobId != null) {
            profile.addMetadata("vantage.job_id", jobId);
        }
    }

    String runId() {
        return runId;
    }

    /** Notes the end of a step. */
    void stepEnded() {
        long now = System.nanoTime();
        Map<String, Long> allocated = Map.of();
        Map<String, Long> peak = Map.of();
        if (memoryDevice != null) {
            Map<String, Long> stats = memory.memoryStats(memoryDevice).values();
            allocated = Map.of(memoryDevice, stats.getOrDefault("allocated_bytes.all.current", 0L));
            peak = Map.of(memoryDevice, stats.getOrDefault("allocated_bytes.all.peak", 0L));
        }
        steps.add(new RunRecord.Step(steps.size() + 1, now - lastStepNanos, allocated, peak));
        lastStepNanos = now;
    }

    /** Notes a file or folder the run wrote. */
    void wrote(Path target, String kind) {
        artifacts.add(new RunRecord.Artifact(target, kind));
    }

    /**
     * Appends the run's line to the registry and says so; returns 0, or 1 when the line could not be written.
     *
     * @param failed whether the workload or an export failed
     */
    int finish(boolean failed, PrintStream out, PrintStream err) {
        RunRecord record = new RunRecord(runId, jobId, options.rank(), options.rank() == null ? null
                : options.worldSize() == null ? Integer.valueOf(1) : options.worldSize(), "run",
                failed ? "failed" : "ok",
                startEpochNanos, Math.max(startEpochNanos, epochNanos()), commandLine, configuration(),
                List.of(device), steps, artifacts);
        try {
            Path file = registry.record(options.profileDir(), record);
            out.println("run recorded: " + runId + " in " + file);
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("vantage: recording run " + runId + " in " + options.profileDir().resolve("runs.jsonl")
                    + " failed: " + e.getMessage());
            return 1;
        }
    }

    /** The run's resolved settings, under the names of the flags. */
    private Map<String, Object> configuration() {
        RunCommand o = options;
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("workload", o.workload());
        c.put("device", device.name());
        c.put("steps", o.steps());
        c.put("seed", o.run().seed());
        c.put("batch_size", o.run().batchSize());
        c.put("threads", o.run().threads());
        // a model run: which model, on which inputs (a run's line is read without its command line)
        c.put("model", o.run().model() == null ? null : o.run().model().toString());
        c.put("seq_len", o.run().sequenceLength() > 0 ? o.run().sequenceLength() : null);
        if (!o.run().inputShapes().isEmpty()) {
            Map<String, Object> inputs = new LinkedHashMap<>();
            o.run().inputShapes().forEach((name, dims) -> inputs.put(name,
                    java.util.Arrays.stream(dims).boxed().toList()));
            c.put("input", inputs);
        }
        c.put("optimizer", o.optimizer());
        c.put("ddp", o.ddp());
        c.put("profile_name", o.profileName());
        c.put("profile_dir", o.profileDir().toString());
        c.put("activities", recording.activities().stream().sorted().map(Activity::name).toList());
        c.put("exporters", o.exports());
        c.put("schedule", o.schedule());
        c.put("record_shapes", o.recordShapes());
        c.put("with_stack", o.withStack());
        c.put("with_flops", o.withFlops());
        c.put("max_events", o.maxEvents() == null ? null : o.maxEvents().longValue());
        c.put("device_memory_bytes", o.deviceMemory());
        c.put("memory_snapshot", o.memorySnapshot() == null ? null : o.memorySnapshot().toString());
        c.put("track_memory", o.trackMemory());
        c.put("rank", o.rank());
        c.put("world_size", o.worldSize());
        return c;
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
