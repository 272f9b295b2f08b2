package dev.vantage.device.npu.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.MemoryStats;

/** The allocator counters of NPU 0, under torch's {@code memory_stats()} names. */
@Component(service = MemoryAllocator.class)
public class NpuAllocator implements MemoryAllocator {

    private final NpuDriver driver;

    /** Creates the component on a driver; DS passes the highest-ranked {@link NpuDriver} service. */
    @Activate
    public NpuAllocator(@Reference NpuDriver driver) {
        this.driver = driver;
    }

    @Override
    public String device() {
        return "npu:0";
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
