package dev.vantage.device.spyre.internal;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.device.spyre.driver.SpyreTracing;
import dev.vantage.device.spyre.driver.SpyreTracingUnavailableException;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivitySource;

/**
 * Spyre compute, copies, fills and runtime calls, when a profile records {@link Activity#SPYRE}. The first such
 * profile makes the driver load its tracing library; if the library is unavailable, the profile goes on with
 * CPU-side events only: the session records nothing and says why in the trace's errors, and a warning is logged
 * once.
 */
@Component(service = DeviceActivitySource.class)
public class SpyreActivitySource implements DeviceActivitySource {

    private static final System.Logger LOG = System.getLogger("dev.vantage.device.spyre");

    private final SpyreDriver driver;
    private final AtomicBoolean warned = new AtomicBoolean();

    /** Creates the component on a driver; DS passes the highest-ranked {@link SpyreDriver} service. */
    @Activate
    public SpyreActivitySource(@Reference SpyreDriver driver) {
        this.driver = driver;
    }

    @Override
    public Activity activity() {
        return Activity.SPYRE;
    }

    @Override
    public String deviceType() {
        return EmulatedSpyreDriver.TYPE;
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        if (!requested.contains(Activity.SPYRE)) {
            return null;
        }
        SpyreTracing tracing;
        try {
            tracing = driver.tracing();
        } catch (SpyreTracingUnavailableException e) {
            String error = e.library() + " not available: SPYRE device activity not recorded; the profile has"
                    + " CPU-side events only (" + e.reason() + ")";
            if (warned.compareAndSet(false, true)) {
                LOG.log(Level.WARNING, error);
            }
            return new UnavailableSession(driver, error);
        }
        return new SpyreSession(driver, tracing, config);
    }
}
