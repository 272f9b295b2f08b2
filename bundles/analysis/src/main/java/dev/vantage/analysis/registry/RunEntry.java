package dev.vantage.analysis.registry;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One run of a {@code runs.jsonl} registry: the fields other verbs use, typed, and the whole line as JSON for the
 * rest (see {@code schemas/run.schema.json} for every field).
 *
 * @param runId the run's id, 12 lowercase hex digits for runs Vantage wrote; never null
 * @param jobId the id every rank of one {@code vantage launch} shares; null for a run of its own
 * @param rank the run's rank in its job; null when none was set
 * @param worldSize the number of ranks of its job; null when no rank was set
 * @param trigger how the run came about: {@code run} (a {@code vantage run}), or {@code attach}, {@code shell} or
 *     {@code config} for an on-demand capture
 * @param startEpochNanos the start of the run, in nanoseconds since the Unix epoch
 * @param endEpochNanos the end of the run, in nanoseconds since the Unix epoch
 * @param workload the workload's name; null for an on-demand capture of a process that did not name one
 * @param device the device the run was on, such as {@code npu:0}; null when not known
 * @param commandLine the command line, as its words; empty when not known
 * @param steps the steps, in order
 * @param artifacts the files the run wrote, with absolute paths
 * @param line the line of the registry the run is on, from 1
 * @param json the whole line; callers must not change it
 */
public record RunEntry(String runId, String jobId, Integer rank, Integer worldSize, String trigger,
        long startEpochNanos, long endEpochNanos, String workload, String device, List<String> commandLine,
        List<Step> steps, List<Artifact> artifacts, int line, ObjectNode json) {

    /**
     * One step of a run.
     *
     * @param step the step's number, from 1
     * @param durationNanos how long the step took
     * @param peakAllocatedBytes per device, the most bytes allocated on it from the start of the run to the end of
     *     this step; empty when memory was not recorded
     */
    public record Step(long step, long durationNanos, Map<String, Long> peakAllocatedBytes) {
        /** Copies the map. */
        public Step {
            peakAllocatedBytes = Map.copyOf(peakAllocatedBytes);
        }
    }

    /**
     * One file a run wrote.
     *
     * @param path the path as the registry has it: relative to the registry's directory, or absolute for a file
     *     written elsewhere
     * @param file the absolute path
     * @param kind what it is: an exporter's format ({@code chrome}, {@code tensorboard}, {@code csv}, ...),
     *     {@code stacks}, {@code memory-timeline}, {@code memory-snapshot} or {@code memory-summary}
     * @param bytes its size when it was written
     * @param sha256 its SHA-256 when it was written, 64 lowercase hex digits
     */
    public record Artifact(String path, Path file, String kind, long bytes, String sha256) {
        /** Checks the fields. */
        public Artifact {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(sha256, "sha256");
        }

        /** Returns true when the file is a trace in Chrome trace format (also TensorBoard's {@code .pt.trace.json}). */
        public boolean isChromeTrace() {
            String name = file.getFileName().toString();
            return (kind.equals("chrome") || kind.equals("tensorboard"))
                    && (name.endsWith(".json") || name.endsWith(".json.gz"));
        }
    }

    /** Checks the fields and copies the lists. */
    public RunEntry {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(trigger, "trigger");
        commandLine = List.copyOf(commandLine);
        steps = List.copyOf(steps);
        artifacts = List.copyOf(artifacts);
        Objects.requireNonNull(json, "json");
    }

    /**
     * Returns the run's traces in Chrome trace format, absolute: those of the {@code chrome} exporter first, then
     * TensorBoard's; empty when the run wrote none (it exported csv only, say).
     */
    public List<Path> traces() {
        return java.util.stream.Stream.concat(
                artifacts.stream().filter(a -> a.kind().equals("chrome") && a.isChromeTrace()),
                artifacts.stream().filter(a -> a.kind().equals("tensorboard") && a.isChromeTrace()))
                .map(Artifact::file).toList();
    }

    /** Returns the mean step duration in nanoseconds; empty when the run has no steps. */
    public OptionalDouble meanStepNanos() {
        return steps.stream().mapToLong(Step::durationNanos).average();
    }

    /** Returns a short description of what ran: the workload, else the trigger of an on-demand capture. */
    public String what() {
        if (workload != null) {
            return workload;
        }
        return "on-demand (" + trigger + ")";
    }
}
