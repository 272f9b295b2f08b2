package dev.vantage.device.spyre.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.MemoryStats;

/**
 * The allocator counters of Spyre 0, under torch's {@code memory_stats()} names; zeros until the device
 * initialises (reading them does not initialise it).
 */
@Component(service = MemoryAllocator.class)
public class SpyreAllocator implements MemoryAllocator {

    private final SpyreDriver driver;

    /** Creates the component on a driver; DS passes the highest-ranked {@link SpyreDriver} service. */
    @Activate
    public SpyreAllocator(@Reference SpyreDriver driver) {
        this.driver = driver;
    }

    @Override
    public String device() {
        return EmulatedSpyreDriver.TYPE + ":0";
    }

    @Override
    public MemoryStats stats() {
        return driver.memoryStats(0);
    }

    @Override
    public void resetPeakStats() {
        driver.resetPeakMemoryStats(0);
    }
}
