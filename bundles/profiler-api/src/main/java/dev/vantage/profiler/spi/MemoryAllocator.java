package dev.vantage.profiler.spi;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;

/**
 * A device's instrumented allocator, registered as a service by its device bundle. Thread-safe.
 *
 * <p>Only {@link #device()}, {@link #stats()} and {@link #resetPeakStats()} are required; an allocator that caches
 * device memory, records its history or can be capped overrides the others.
 */
@ConsumerType
public interface MemoryAllocator {

    /** Returns the device this allocator serves, such as {@code cpu} or {@code npu:0}. */
    String device();

    /** Returns the current counters. */
    MemoryStats stats();

    /** Resets the peak counters to the current values. */
    void resetPeakStats();

    /**
     * Resets the accumulated counters ({@code *.allocated}, {@code *.freed}, {@code num_alloc_retries},
     * {@code num_ooms}, ...) to zero, as torch's {@code reset_accumulated_memory_stats}. Does nothing by default.
     */
    default void resetAccumulatedStats() {
    }

    /**
     * Gives the device back every cached segment no block uses, as torch's {@code empty_cache()}. Does nothing by
     * default (an allocator that caches nothing).
     */
    default void emptyCache() {
    }

    /**
     * Returns the segments held and the recorded history. By default, nothing: an allocator without segments.
     */
    default MemorySnapshot snapshot() {
        return MemorySnapshot.empty(0);
    }

    /**
     * Starts or stops recording the allocator's history for {@link #snapshot()}, as torch's
     * {@code _record_memory_history}.
     *
     * @param maxEntries how many of the latest actions to keep; 0 stops recording and clears the history
     * @param stacks whether each action records the frames of the allocating code
     * @return false if this allocator records no history
     */
    default boolean recordHistory(int maxEntries, boolean stacks) {
        return false;
    }

    /**
     * Caps the bytes the allocator may hold from the device, as torch's {@code set_per_process_memory_fraction};
     * an allocation that would go beyond fails with an out-of-memory error after freeing the cache.
     *
     * @param bytes the cap; 0 or less removes it
     * @return false if this allocator cannot be capped
     */
    default boolean limit(long bytes) {
        return false;
    }

    /** Returns the bytes the device has, or 0 when unknown. */
    default long capacity() {
        return 0;
    }
}
