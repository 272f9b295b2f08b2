package dev.vantage.profiler.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Device memory as torch's {@code torch.cuda.memory} module offers it, over the installed
 * {@link dev.vantage.profiler.spi.MemoryAllocator} services: counters, peaks, caps, the allocator history and
 * snapshots. A service of its own, implemented by the profiler core; thread-safe.
 *
 * <p>A device is named as its allocator names it ({@code cpu}, {@code npu:0}); a device type alone ({@code npu})
 * means index 0.
 */
@ProviderType
public interface MemoryAdmin {

    /** Returns the devices with an installed allocator, such as {@code cpu} and {@code npu:0}; sorted. */
    List<String> devices();

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
     *
     * @throws IllegalArgumentException if no installed allocator serves the device
     */
    long memoryCapacity(String device);

    /**
     * Sets a device's peak counters to their current values, as torch's {@code reset_peak_memory_stats}.
     *
     * @throws IllegalArgumentException if no installed allocator serves the device
     */
    void resetPeakMemoryStats(String device);

    /**
     * Sets a device's accumulated counters to zero, as torch's {@code reset_accumulated_memory_stats}.
     *
     * @throws IllegalArgumentException if no installed allocator serves the device
     */
    void resetAccumulatedMemoryStats(String device);

    /**
     * Returns a device's counters as torch's {@code memory_summary()} table: 75-character rules, one row per
     * statistic with its current, peak, total allocated and total freed values, and, unless abbreviated, the
     * large-pool and small-pool rows under each.
     *
     * @throws IllegalArgumentException if no installed allocator serves the device
     */
    String memorySummary(String device, boolean abbreviated);

    /**
     * Gives a device every cached segment no tensor uses, as torch's {@code empty_cache()}.
     *
     * @throws IllegalArgumentException if no installed allocator serves the device
     */
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
     * Writes {@link #memorySnapshot(String)} to a file through the installed view exporter
     * ({@link dev.vantage.profiler.spi.ViewExporter}): a Python pickle that PyTorch's {@code memory_viz} reads,
     * unless the name ends in {@code .json}, then JSON of the same structure, as torch's {@code _dump_snapshot}.
     *
     * @throws IllegalArgumentException if no installed allocator serves that type
     * @throws IllegalStateException if no view exporter is installed
     * @throws IOException if the file cannot be written; nothing is left under its name
     */
    void dumpMemorySnapshot(String deviceType, Path file) throws IOException;

    /**
     * Writes {@link #memorySnapshot(String)} to a file, as {@link #dumpMemorySnapshot}, and returns the
     * {@link #memorySummary} of one of its devices as it was when the snapshot was taken, so that the two agree to
     * the byte even while the allocator is in use (cache-dit writes the pair together). The default takes them one
     * after the other; the profiler core's takes both between two identical readings of the counters.
     *
     * @param device the device whose summary to return, of {@code deviceType}
     * @throws IllegalArgumentException if no installed allocator serves that type or device
     * @throws IllegalStateException if no view exporter is installed
     * @throws IOException if the file cannot be written; nothing is left under its name
     */
    default String dumpMemorySnapshotAndSummary(String deviceType, Path file, String device, boolean abbreviated)
            throws IOException {
        dumpMemorySnapshot(deviceType, file);
        return memorySummary(device, abbreviated);
    }
}
