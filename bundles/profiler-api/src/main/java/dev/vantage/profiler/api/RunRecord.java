package dev.vantage.profiler.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the caller knows of one finished profiled run, for {@code RunRegistry.record} (in
 * {@code dev.vantage.profiler.spi}): the registry adds the platform, the bundles and the artifacts' sizes and
 * checksums, and appends it as one line of {@code <profile-dir>/runs.jsonl}.
 *
 * @param runId the run's id, as {@link #newId()} makes one; it is also the trace metadata key
 *     {@code vantage.run_id}
 * @param jobId the id every rank of one {@code vantage launch} shares (trace metadata {@code vantage.job_id}); null
 *     for a run of its own
 * @param rank the rank, or null when none was set
 * @param worldSize the number of ranks, or null when no rank was set
 * @param trigger how the run came about: {@code run}, or an on-demand capture's {@code attach}, {@code shell} or
 *     {@code config}
 * @param status {@code ok}, or {@code failed} when the workload or an export failed
 * @param startEpochNanos the start of the run, in nanoseconds since the Unix epoch
 * @param endEpochNanos the end of the run, in nanoseconds since the Unix epoch; not before the start
 * @param commandLine the command's words; empty when not known
 * @param configuration the resolved settings (workload, device, steps, schedule, activities, exporters, ...): keys
 *     to values that are strings, numbers, booleans, lists of them or maps of them; null values are left out
 * @param devices the devices the run used
 * @param steps the steps the run marked, in order
 * @param artifacts the files and folders the run wrote
 * @since 2.3
 */
public record RunRecord(String runId, String jobId, Integer rank, Integer worldSize, String trigger, String status,
        long startEpochNanos, long endEpochNanos, List<String> commandLine, Map<String, Object> configuration,
        List<Device> devices, List<Step> steps, List<Artifact> artifacts) {

    private static final Pattern ID = Pattern.compile("[0-9a-f]{12}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * A device a run used.
     *
     * @param name such as {@code npu:0} or {@code cpu}
     * @param emulated true for a device emulated in software, false for real hardware, null when not known
     * @param memoryCapacityBytes the bytes the device has, or null when not known
     */
    public record Device(String name, Boolean emulated, Long memoryCapacityBytes) {
        /** Checks the name. */
        public Device {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * One step of a run.
     *
     * @param step the step's number, from 1
     * @param durationNanos the time from the end of the previous step (or the start of the run) to its end
     * @param allocatedBytes per device, the bytes allocated at the end of the step; empty when not recorded
     * @param peakAllocatedBytes per device, the most bytes allocated since the start of the run; empty when not
     *     recorded
     */
    public record Step(long step, long durationNanos, Map<String, Long> allocatedBytes,
            Map<String, Long> peakAllocatedBytes) {
        /** Copies the maps. */
        public Step {
            allocatedBytes = Map.copyOf(allocatedBytes);
            peakAllocatedBytes = Map.copyOf(peakAllocatedBytes);
        }
    }

    /**
     * A file or folder a run wrote. A folder (a TensorBoard run directory, which several runs and ranks share)
     * stands for the files in it that this process wrote since the run began.
     *
     * @param target the file or folder
     * @param kind an exporter's format ({@code chrome}, {@code csv}, ...), {@code stacks}, {@code memory-timeline},
     *     {@code memory-snapshot} or {@code memory-summary}
     */
    public record Artifact(Path target, String kind) {
        /** Checks the fields. */
        public Artifact {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * Checks the fields and copies the collections.
     *
     * @throws IllegalArgumentException if the run id or job id is not one {@link #newId()} makes, or the end is
     *     before the start
     */
    public RunRecord {
        if (!ID.matcher(Objects.requireNonNull(runId, "runId")).matches()) {
            throw new IllegalArgumentException("a run id is 12 lowercase hex digits, not '" + runId + "'");
        }
        if (jobId != null && !ID.matcher(jobId).matches()) {
            throw new IllegalArgumentException("a job id is 12 lowercase hex digits, not '" + jobId + "'");
        }
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(status, "status");
        if (endEpochNanos < startEpochNanos) {
            throw new IllegalArgumentException("the run ends (" + endEpochNanos + ") before it starts ("
                    + startEpochNanos + ")");
        }
        commandLine = List.copyOf(commandLine);
        configuration = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(configuration));
        devices = List.copyOf(devices);
        steps = List.copyOf(steps);
        artifacts = List.copyOf(artifacts);
    }

    /** Returns a new random run or job id: 12 lowercase hex digits (48 bits). */
    public static String newId() {
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** Returns true when a text is an id as {@link #newId()} makes them. */
    public static boolean isId(String text) {
        return text != null && ID.matcher(text).matches();
    }

    /**
     * Returns the digest the registry records of a file a run wrote ({@code sha256} in {@code runs.jsonl}), and
     * {@code vantage runs} checks the file against: its SHA-256, in lower-case hex.
     *
     * @since 3.2
     */
    public static String sha256(Path file) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
