package dev.vantage.profiler.api;

import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of an allocator's counters, keyed with the names of PyTorch's {@code memory_stats()} (for example
 * {@code allocated_bytes.all.current}, {@code reserved_bytes.all.peak}, {@code num_alloc_retries}).
 *
 * @param device the device, such as {@code npu:0}
 * @param values counter name to value; sorted by name
 */
public record MemoryStats(String device, Map<String, Long> values) {

    /** Copies the values. */
    public MemoryStats {
        Objects.requireNonNull(device, "device");
        values = Map.copyOf(values);
    }
}
