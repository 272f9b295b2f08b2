package dev.vantage.analysis.registry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.profiler.api.RunRecord;

/**
 * One run of a {@code runs.jsonl} registry as the reader found it: the run as the profiler API models it (the
 * {@link RunRecord} the profiler core wrote the line from), and what only the reader knows: the registry file, the
 * line the run is on, and the whole line as JSON. The line also holds what the profiler core adds when it writes
 * it and {@code RunRecord} has no place for: the platform, the bundles, the host and pid, and each artifact's path
 * as written, size and SHA-256 (see {@code schemas/run.schema.json}).
 *
 * @param record the run; one {@link RunRecord.Artifact} per file the line lists, with its absolute path
 * @param file the registry file, absolute
 * @param line the line of the registry the run is on, from 1
 * @param json the whole line; callers must not change it
 */
public record RunEntry(RunRecord record, Path file, int line, ObjectNode json) {

    /** Checks the fields. */
    public RunEntry {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(json, "json");
    }

    /** Returns the run's traces, absolute, one per schedule cycle ({@link TraceReader#runTraces}). */
    public List<Path> traces() {
        return TraceReader.runTraces(record.artifacts());
    }

    /** Returns the mean step duration in nanoseconds; empty when the run has no steps. */
    public OptionalDouble meanStepNanos() {
        return record.steps().stream().mapToLong(RunRecord.Step::durationNanos).average();
    }

    /** Returns the workload the configuration names; null for an on-demand capture of a process that named none. */
    public String workload() {
        return record.configuration().get("workload") instanceof String s ? s : null;
    }

    /** Returns the device the configuration names, such as {@code npu:0}; null when it names none. */
    public String device() {
        return record.configuration().get("device") instanceof String s ? s : null;
    }

    /** Returns a short description of what ran: the workload, else the trigger of an on-demand capture. */
    public String what() {
        String workload = workload();
        return workload != null ? workload : "on-demand (" + record.trigger() + ")";
    }

    /**
     * Says whether a file the run wrote is still what the run wrote: the size and SHA-256 its line records for it.
     * A reader checks every artifact it reads, so that a file another run wrote over (runs that started in the same
     * second once shared a name) is never read as this run's.
     *
     * @param file a file of {@link RunRecord#artifacts()} (absolute)
     * @return null when the file is as recorded, or the line records no checksum for it; else what differs, as a
     *     phrase such as {@code changed since the run wrote it (sha256 in runs.jsonl:2 is 5d41..., the file's is
     *     7c21...)}
     * @throws UncheckedIOException if the file cannot be read
     */
    public String changed(Path file) {
        Path target = file.toAbsolutePath().normalize();
        Path dir = this.file.getParent();
        for (JsonNode a : json.path("artifacts")) {
            String path = a.path("path").asText("");
            if (path.isEmpty() || !dir.resolve(path).normalize().equals(target) || !a.path("sha256").isTextual()) {
                continue;
            }
            String where = this.file.getFileName() + ":" + line;
            if (!Files.isRegularFile(target)) {
                return "is gone (" + where + " lists it)";
            }
            String recorded = a.path("sha256").asText();
            String actual;
            try {
                actual = RunRecord.sha256(target);
            } catch (IOException e) {
                throw new UncheckedIOException(target + ": " + e.getMessage(), e);
            }
            if (!actual.equalsIgnoreCase(recorded)) {
                return "changed since the run wrote it (sha256 in " + where + " is " + abbreviate(recorded)
                        + ", the file's is " + abbreviate(actual) + ")";
            }
            return null;
        }
        return null;
    }

    /**
     * Returns each artifact that is there but not as recorded, as {@code <path> <what differs>}; empty when all are.
     * Files that are gone are not listed: deleting a run's files is the user's to do.
     */
    public List<String> changedArtifacts() {
        List<String> changed = new ArrayList<>();
        for (RunRecord.Artifact a : record.artifacts()) {
            if (!Files.isRegularFile(a.target())) {
                continue;
            }
            String why = changed(a.target());
            if (why != null) {
                changed.add(a.target() + " " + why);
            }
        }
        return changed;
    }

    /** Returns true when the line lists a file among its artifacts. */
    public boolean lists(Path file) {
        Path target = file.toAbsolutePath().normalize();
        return record.artifacts().stream().anyMatch(a -> a.target().equals(target));
    }

    private static String abbreviate(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) + "..." : sha;
    }
}
