package dev.vantage.device.kit.memory;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;

/**
 * One device's allocator of blocks of device memory. {@link CachingAllocator} is torch's caching allocator; a
 * device whose memory is managed otherwise implements this over {@link AllocatorStats} and
 * {@link MemoryHistory}, so that its counters, snapshots and errors are the same. Thread-safe.
 */
@ConsumerType
public interface BlockAllocator {

    /** Returns the device, such as {@code npu:0}. */
    String device();

    /** Returns the device's index. */
    int index();

    /** Returns the bytes the device has. */
    long capacity();

    /**
     * Hands out a block of at least {@code bytes} for work on a stream, or returns null when the memory is not
     * there even after freeing the cache; the caller may free memory of its own and call {@link #allocate}.
     *
     * @throws IllegalArgumentException if the size is negative or the stream unknown
     */
    MemoryBlock tryAllocate(long bytes, int stream);

    /**
     * Hands out a block of at least {@code bytes} for work on a stream.
     *
     * @throws DeviceOutOfMemoryError if the memory is not there even after freeing the cache; the failure is
     *     counted ({@code num_ooms}), recorded in the history and reported to the profiler
     */
    MemoryBlock allocate(long bytes, int stream);

    /**
     * Takes a block back.
     *
     * @throws IllegalStateException if the block is not handed out by this allocator now
     */
    void free(MemoryBlock block);

    /** Returns how many blocks have been freed so far; waiters for memory compare it. */
    long frees();

    /**
     * Waits until a block is freed after {@code seen} frees, or the time is up.
     *
     * @return whether a block was freed
     */
    boolean awaitFree(long seen, long nanos) throws InterruptedException;

    /** Gives every cached segment no block uses back to the device. */
    void emptyCache();

    /** Returns the counters under torch's {@code memory_stats()} names. */
    MemoryStats stats();

    /** Sets the peaks to the current values. */
    void resetPeakStats();

    /** Sets the accumulated counters to zero. */
    void resetAccumulatedStats();

    /** Returns the segments held and the recorded history. */
    MemorySnapshot snapshot();

    /** Starts or stops recording history; see {@link MemoryHistory#enable}. */
    void recordHistory(int maxEntries, boolean stacks);

    /** Caps the bytes held from the device; 0 or less removes the cap. */
    void limit(long bytes);

    /** Returns the cap, or 0 for none. */
    long limit();
}
