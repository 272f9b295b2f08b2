package dev.vantage.device.spyre.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverAllocator;
import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * The allocator counters of Spyre 0, under torch's {@code memory_stats()} names; zeros until the device
 * initialises (reading them does not initialise it).
 */
@Component(service = MemoryAllocator.class)
public class SpyreAllocator extends DriverAllocator {

    /** Creates the component on a driver; DS passes the highest-ranked {@link SpyreDriver} service. */
    @Activate
    public SpyreAllocator(@Reference SpyreDriver driver) {
        super(driver, 0);
    }
}
