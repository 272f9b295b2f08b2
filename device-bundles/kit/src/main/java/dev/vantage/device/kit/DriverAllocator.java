package dev.vantage.device.kit;

import dev.vantage.device.kit.memory.BlockAllocator;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * One device's allocator as the profiler sees it, read from its driver: counters always; caching, caps, history
 * and snapshots when the driver has a {@link DeviceDriver#allocator block allocator}. A device bundle's allocator
 * component extends it.
 */
public class DriverAllocator implements MemoryAllocator {

    private volatile DeviceDriver driver;
    private final int device;

    /** Serves device {@code device} of a driver. */
    protected DriverAllocator(DeviceDriver driver, int device) {
        this.driver = driver;
        this.device = device;
    }

    /** Serves device {@code device} of the driver {@link #swapDriver} gives it later. */
    protected DriverAllocator(int device) {
        this.device = device;
    }

    /** Reads the counters of another driver from now on (a vendor's driver arriving, or leaving). */
    public void swapDriver(DeviceDriver next) {
        driver = next;
    }

    @Override
    public String device() {
        return driver.deviceType() + ":" + device;
    }

    @Override
    public MemoryStats stats() {
        return driver.memoryStats(device);
    }

    @Override
    public void resetPeakStats() {
        driver.resetPeakMemoryStats(device);
    }

    private BlockAllocator blocks() {
        return driver.allocator(device);
    }

    @Override
    public void resetAccumulatedStats() {
        BlockAllocator b = blocks();
        if (b != null) {
            b.resetAccumulatedStats();
        }
    }

    @Override
    public void emptyCache() {
        BlockAllocator b = blocks();
        if (b != null) {
            b.emptyCache();
        }
    }

    @Override
    public MemorySnapshot snapshot() {
        BlockAllocator b = blocks();
        return b != null ? b.snapshot() : MemorySnapshot.empty(device);
    }

    @Override
    public boolean recordHistory(int maxEntries, boolean stacks) {
        BlockAllocator b = blocks();
        if (b == null) {
            return false;
        }
        b.recordHistory(maxEntries, stacks);
        return true;
    }

    @Override
    public boolean limit(long bytes) {
        BlockAllocator b = blocks();
        if (b == null) {
            return false;
        }
        b.limit(bytes);
        return true;
    }

    @Override
    public long capacity() {
        BlockAllocator b = blocks();
        return b != null ? b.capacity() : 0;
    }
}
