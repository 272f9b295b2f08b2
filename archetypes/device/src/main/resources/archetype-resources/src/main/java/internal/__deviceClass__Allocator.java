package ${package}.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.device.kit.DriverAllocator;
import dev.vantage.profiler.spi.MemoryAllocator;
import ${package}.driver.${deviceClass}Driver;

/** The allocator counters of ${deviceType} device 0, under torch's {@code memory_stats()} names. */
@Component(service = MemoryAllocator.class)
public class ${deviceClass}Allocator extends DriverAllocator {

    /** Creates the component; DS binds the driver before activating it. */
    public ${deviceClass}Allocator() {
        super(0);
    }

    /** Creates an allocator on a driver, for tests and for use without a framework. */
    public ${deviceClass}Allocator(${deviceClass}Driver driver) {
        super(driver, 0);
    }

    /** Follows the highest-ranked driver. */
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(${deviceClass}Driver driver) {
        swapDriver(driver);
    }

    /** Nothing to do: DS binds the replacement first, or deactivates this component when none is left. */
    void unbindDriver(${deviceClass}Driver driver) {
    }
}
