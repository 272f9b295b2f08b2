package dev.vantage.device.npu.internal;

import java.util.Map;
import java.util.Set;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverSession;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivitySource;

/** NPU kernels, copies, fills and launches, when a profile records {@link Activity#NPU}. */
@Component(service = DeviceActivitySource.class)
public class NpuActivitySource implements DeviceActivitySource {

    private final NpuDriver driver;

    /** Creates the component on a driver; DS passes the highest-ranked {@link NpuDriver} service. */
    @Activate
    public NpuActivitySource(@Reference NpuDriver driver) {
        this.driver = driver;
    }

    @Override
    public Activity activity() {
        return Activity.NPU;
    }

    @Override
    public String deviceType() {
        return NpuBackend.TYPE;
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        return requested.contains(Activity.NPU) ? new DriverSession(driver, config) : null;
    }
}
