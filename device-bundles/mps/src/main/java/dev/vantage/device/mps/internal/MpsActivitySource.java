package dev.vantage.device.mps.internal;

import java.util.Map;
import java.util.Set;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.mps.driver.MetalDriver;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivitySource;

/** MPS kernels, copies, fills, encode calls and commits, when a profile records {@link Activity#MPS}. */
@Component(service = DeviceActivitySource.class)
public class MpsActivitySource implements DeviceActivitySource {

    private final MetalDriver driver;

    /** Creates the component on a driver; DS passes the highest-ranked {@link MetalDriver} service. */
    @Activate
    public MpsActivitySource(@Reference MetalDriver driver) {
        this.driver = driver;
    }

    @Override
    public Activity activity() {
        return Activity.MPS;
    }

    @Override
    public String deviceType() {
        return MpsBackend.TYPE;
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        return requested.contains(Activity.MPS) ? new MpsSession(driver, config) : null;
    }
}
