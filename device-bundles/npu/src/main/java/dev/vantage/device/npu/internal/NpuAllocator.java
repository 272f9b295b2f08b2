package dev.vantage.device.npu.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverAllocator;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.profiler.spi.MemoryAllocator;

/** The allocator counters of NPU 0, under torch's {@code memory_stats()} names. */
@Component(service = MemoryAllocator.class)
public class NpuAllocator extends DriverAllocator {

    /** Creates the component on a driver; DS passes the highest-ranked {@link NpuDriver} service. */
    @Activate
    public NpuAllocator(@Reference NpuDriver driver) {
        super(driver, 0);
    }
}
