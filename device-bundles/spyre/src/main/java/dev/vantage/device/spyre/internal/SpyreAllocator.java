package dev.vantage.device.spyre.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverAllocator;
import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * The allocator of Spyre 0, under torch's {@code memory_stats()} names, through the driver's block allocator.
 * Reading it does not initialise the device: before initialisation the counters are zeros, the snapshot is empty,
 * emptying the cache and resetting counters do nothing, and the capacity is the device's {@code totalGlobalMem}.
 * Recording history and capping memory act on the device's allocator, so they initialise the device.
 */
@Component(service = MemoryAllocator.class)
public class SpyreAllocator extends DriverAllocator {

    private final SpyreDriver driver;

    /** Creates the component on a driver; DS passes the highest-ranked {@link SpyreDriver} service. */
    @Activate
    public SpyreAllocator(@Reference SpyreDriver driver) {
        super(driver, 0);
        this.driver = driver;
    }

    @Override
    public void resetAccumulatedStats() {
        if (driver.initialized(0)) {
            super.resetAccumulatedStats();
        }
    }

    @Override
    public void emptyCache() {
        if (driver.initialized(0)) {
            super.emptyCache();
        }
    }

    @Override
    public MemorySnapshot snapshot() {
        return driver.initialized(0) ? super.snapshot() : MemorySnapshot.empty(0);
    }

    @Override
    public long capacity() {
        if (driver.initialized(0)) {
            return super.capacity();
        }
        String total = driver.properties(0).get("totalGlobalMem");
        try {
            return total == null ? 0 : Long.parseLong(total);
        } catch (NumberFormatException e) {
            return 0; // a vendor driver's property we cannot read: the capacity is unknown
        }
    }
}
