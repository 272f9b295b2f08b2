package dev.vantage.device.npu.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.device.kit.DriverActivitySource;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.DeviceActivitySource;

/**
 * NPU kernels, copies, fills and launches, when a profile records {@link Activity#NPU}. The driver is the
 * highest-ranked {@link NpuDriver} service, followed as drivers come and go: a profile recording across a swap
 * keeps both drivers' events and names the swap in the trace metadata.
 */
@Component(service = DeviceActivitySource.class)
public class NpuActivitySource extends DriverActivitySource<NpuDriver> {

    /** Creates the component; DS binds the driver before activating it. */
    public NpuActivitySource() {
        super(Activity.NPU, NpuBackend.TYPE);
    }

    /** Creates a source on a driver, for use without a framework. */
    public NpuActivitySource(NpuDriver driver) {
        super(Activity.NPU, driver);
    }

    /** Takes the highest-ranked driver, and the next one whenever a higher-ranked driver arrives. */
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(NpuDriver driver) {
        swapDriver(driver);
    }

    /** Nothing to do: DS binds the replacement first, or deactivates this component when none is left. */
    void unbindDriver(NpuDriver driver) {
    }
}
