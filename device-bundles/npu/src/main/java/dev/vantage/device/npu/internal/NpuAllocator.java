package dev.vantage.device.npu.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.device.kit.DriverAllocator;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.profiler.spi.MemoryAllocator;

/** The allocator counters of NPU 0, under torch's {@code memory_stats()} names, from the driver bound now. */
@Component(service = MemoryAllocator.class)
public class NpuAllocator extends DriverAllocator {

    /** Creates the component; DS binds the driver before activating it. */
    public NpuAllocator() {
        super(0);
    }

    /** Creates an allocator on a driver, for use without a framework. */
    public NpuAllocator(NpuDriver driver) {
        super(driver, 0);
    }

    /** Takes the highest-ranked {@link NpuDriver} service, following drivers as they come and go. */
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(NpuDriver driver) {
        swapDriver(driver);
    }

    /** Nothing to do: DS binds the replacement first, or deactivates this component when none is left. */
    void unbindDriver(NpuDriver driver) {
    }
}
