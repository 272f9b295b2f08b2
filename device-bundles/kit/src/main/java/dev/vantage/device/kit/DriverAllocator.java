package dev.vantage.device.kit;

import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.MemoryStats;

/**
 * One device's allocator counters, read from its driver. A device bundle's allocator component extends it.
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
}
