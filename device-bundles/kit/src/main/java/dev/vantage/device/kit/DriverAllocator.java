package dev.vantage.device.kit;

import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.MemoryStats;

/**
 * One device's allocator counters, read from its driver. A device bundle's allocator component extends it.
 */
public class DriverAllocator implements MemoryAllocator {

    private final DeviceDriver driver;
    private final int device;

    /** Serves device {@code device} of a driver. */
    protected DriverAllocator(DeviceDriver driver, int device) {
        this.driver = driver;
        this.device = device;
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
}
