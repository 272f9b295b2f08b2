package dev.vantage.device.mps.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverAllocator;
import dev.vantage.device.mps.driver.MetalDriver;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * The allocator counters of MPS 0, under torch's {@code memory_stats()} names, with the unified-memory numbers
 * {@code current_allocated_memory}, {@code driver_allocated_memory} and {@code recommended_max_memory}.
 */
@Component(service = MemoryAllocator.class)
public class MpsAllocator extends DriverAllocator {

    /** Creates the component on a driver; DS passes the highest-ranked {@link MetalDriver} service. */
    @Activate
    public MpsAllocator(@Reference MetalDriver driver) {
        super(driver, 0);
    }
}
