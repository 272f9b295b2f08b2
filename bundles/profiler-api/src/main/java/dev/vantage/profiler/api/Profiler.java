package dev.vantage.profiler.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.profiler.spi.MemorySnapshot;
import dev.vantage.profiler.spi.MemoryStats;
import dev.vantage.profiler.trace.Trace;

/**
 * The profiler service: starts profiles and exports traces through the installed exporters. Implemented by the
 * profiler core; get it from the service registry (or a DS reference). Thread-safe.
 */
@ProviderType
public interface Profiler {

    /** Returns a builder for a new profile; {@link ProfileBuilder#start()} starts it. */
    default ProfileBuilder profile() {
        return new ProfileBuilder(this::start);
    }

    /**
     * Starts recording.
     *
     * @param options what to record; not null
     * @return the profile, in state {@link ProfileState#RECORDING}
     * @throws IllegalStateException if another profile is recording
     * @throws IllegalArgumentException if an activity other than CPU has no device bundle installed; the message
     *     lists the available activities
     */
    Profile start(ProfileOptions options);

    /** Returns the activities that can be recorded now (CPU always, devices whose bundles are installed). */
    Set<Activity> availableActivities();

    /**
     * Returns the device activities that can be recorded now, each with the device type whose work it records
     * ({@code NPU} records {@code npu} devices), so that a caller can tell an activity that records nothing on
     * the device it runs on.
     */
    Map<Activity, String> deviceActivities();

    /** Returns the formats of the installed exporters, such as {@code chrome}; a snapshot, sorted. */
    Set<String> exporterFormats();

    /** Returns the installed exporters with the bundles that provide them; a snapshot, sorted by format. */
    List<ExporterInfo> exporters();

    /**
     * Writes a trace with the exporter of a format.
     *
     * @param trace a finished trace; not null
     * @param format an installed exporter format; not null
     * @param target the file or directory to write, as the exporter documents; not null
     * @throws IllegalArgumentException if no installed exporter has that format; the message lists the installed
     * @throws IOException if the exporter fails to write; nothing is left under the target's name
     */
    void export(Trace trace, String format, Path target) throws IOException;

    /**
     * Returns where an exporter would write a trace of the given base name inside a directory.
     *
     * @param format an installed exporter format
     * @param directory the output directory
     * @param baseName a file name without extension, such as {@code matmul-rank0}
     * @throws IllegalArgumentException if no installed exporter has that format
     */
    Path defaultTarget(String format, Path directory, String baseName);

    /**
     * Returns where an exporter would write cycle {@code cycle} of a profile that can complete several, such as
     * {@code dir/name-cycle2.trace.json.gz}, or one TensorBoard run directory for every cycle.
     *
     * @throws IllegalArgumentException if no installed exporter has that format
     */
    Path defaultTarget(String format, Path directory, String baseName, int cycle);

    /**
     * Appends a finished run as one JSON line to {@code <profileDir>/runs.jsonl}, the run registry that
     * {@code vantage runs} lists (its fields: the schema {@code run.schema.json} of the analysis module). The line
     * holds the record, the platform (framework, distribution, Java, OS, host, pid), every bundle with its version,
     * and for each artifact its path relative to the directory, its size and its SHA-256. It is written with one
     * write under an exclusive lock of the file, so the lines of runs that end together (the ranks of a launch)
     * never interleave.
     *
     * @param profileDir the profile directory; made when missing
     * @param run the run; not null
     * @return the registry file
     * @throws IOException if the registry cannot be written or an artifact cannot be read
     * @since 2.3
     */
    Path recordRun(Path profileDir, RunRecord run) throws IOException;

    // ------------------------------------------------------------------------------------------------ memory
    // A device is named as its allocator names it ("cpu", "npu:0"); a device type alone ("npu") means index 0.

    /** Returns the devices with an installed allocator, such as {@code cpu} and {@code npu:0}; sorted. */
    List<String> memoryDevices();

    /**
     * Returns a device's allocator counters under the names of torch's {@code memory_stats()}.
     *
     * @throws IllegalArgumentException if no installed allocator serves the device; the message lists those that do
     */
    MemoryStats memoryStats(String device);

    /** Returns the bytes tensors occupy on a device now: {@code allocated_bytes.all.current}. */
    default long memoryAllocated(String device) {
        return memoryStats(device).values().getOrDefault("allocated_bytes.all.current", 0L);
    }

    /** Returns the most bytes tensors occupied since the start or the last reset: {@code allocated_bytes.all.peak}. */
    default long maxMemoryAllocated(String device) {
        return memoryStats(device).values().getOrDefault("allocated_bytes.all.peak", 0L);
    }

    /** Returns the bytes the allocator holds from the device now: {@code reserved_bytes.all.current}. */
    default long memoryReserved(String device) {
        return memoryStats(device).values().getOrDefault("reserved_bytes.all.current", 0L);
    }

    /** Returns the most bytes the allocator held since the start or the last reset: {@code reserved_bytes.all.peak}. */
    default long maxMemoryReserved(String device) {
        return memoryStats(device).values().getOrDefault("reserved_bytes.all.peak", 0L);
    }

    /**
     * Returns the bytes a device has, as the total of torch's {@code mem_get_info()}; 0 when its allocator does
     * not know (the host's).
     */
    long memoryCapacity(String device);

    /** Sets a device's peak counters to their current values, as torch's {@code reset_peak_memory_stats}. */
    void resetPeakMemoryStats(String device);

    /** Sets a device's accumulated counters to zero, as torch's {@code reset_accumulated_memory_stats}. */
    void resetAccumulatedMemoryStats(String device);

    /**
     * Returns a device's counters as torch's {@code memory_summary()} table: 75-character rules, one row per
     * statistic with its current, peak, total allocated and total freed values, and, unless abbreviated, the
     * large-pool and small-pool rows under each.
     */
    String memorySummary(String device, boolean abbreviated);

    /** Gives a device every cached segment no tensor uses, as torch's {@code empty_cache()}. */
    void emptyCache(String device);

    /**
     * Caps the bytes a device's allocator may hold, as torch's {@code set_per_process_memory_fraction}.
     *
     * @param bytes the cap; 0 or less removes it
     * @throws IllegalArgumentException if no installed allocator serves the device
     * @throws UnsupportedOperationException if the device's allocator cannot be capped (the host's)
     */
    void limitMemory(String device, long bytes);

    /**
     * Starts or stops recording the allocator history of every device of a type, for
     * {@link #memorySnapshot(String)}, as torch's {@code _record_memory_history}.
     *
     * @param deviceType such as {@code npu}
     * @param maxEntries how many of the latest actions each device keeps; 0 stops and forgets
     * @param stacks whether each action records the Java frames of the allocating code
     * @throws IllegalArgumentException if no installed allocator of that type records history
     */
    void recordMemoryHistory(String deviceType, int maxEntries, boolean stacks);

    /**
     * Returns the segments and recorded history of every device of a type, as torch's {@code _snapshot()}.
     *
     * @throws IllegalArgumentException if no installed allocator serves that type
     */
    MemorySnapshot memorySnapshot(String deviceType);

    /**
     * Writes {@link #memorySnapshot(String)} to a file: a Python pickle (protocol 2, which PyTorch's
     * {@code torch/cuda/_memory_viz.py} and its memory_viz page read) unless the name ends in {@code .json}, then
     * JSON of the same structure. Written to a temporary file and renamed.
     *
     * @throws IllegalArgumentException if no installed allocator serves that type
     * @throws IOException if the file cannot be written; nothing is left under its name
     */
    void dumpMemorySnapshot(String deviceType, Path file) throws IOException;
}
