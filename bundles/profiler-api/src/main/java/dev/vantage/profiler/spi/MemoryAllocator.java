package dev.vantage.profiler.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A device's instrumented allocator, registered as a service by its device bundle. Thread-safe.
 */
@ConsumerType
public interface MemoryAllocator {

    /** Returns the device this allocator serves, such as {@code cpu} or {@code npu:0}. */
    String device();

    /** Returns the current counters. */
    MemoryStats stats();

    /** Resets the peak counters to the current values. */
    void resetPeakStats();
}
