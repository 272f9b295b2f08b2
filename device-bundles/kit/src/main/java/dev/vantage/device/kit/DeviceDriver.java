package dev.vantage.device.kit;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.device.kit.memory.BlockAllocator;
import dev.vantage.profiler.api.MemoryStats;

/**
 * What every accelerator driver has besides its tracing side: allocator counters per device. A device bundle's
 * driver interface extends it with its own memory, stream and launch calls.
 */
@ConsumerType
public interface DeviceDriver extends TracingDriver {

    /** Returns a device's allocator counters under torch's {@code memory_stats()} names. */
    MemoryStats memoryStats(int device);

    /** Resets a device's peak counters. */
    void resetPeakMemoryStats(int device);

    /**
     * Returns a device's block allocator, through which its memory is cached, capped, emptied and snapshotted;
     * null (the default) for a driver that keeps only counters.
     */
    default BlockAllocator allocator(int device) {
        return null;
    }
}
