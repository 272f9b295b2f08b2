package ${package}.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.device.kit.DriverActivitySource;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.DeviceActivitySource;
import ${package}.driver.${deviceClass}Driver;

/**
 * ${deviceType} kernels, copies, fills and their launches, when a profile records the {@code ${activity}} activity
 * ({@code --profile-activities CPU ${activity}}). A profile recording while the driver is swapped keeps both
 * drivers' events and names the swap in the trace metadata.
 */
@Component(service = DeviceActivitySource.class)
public class ${deviceClass}ActivitySource extends DriverActivitySource<${deviceClass}Driver> {

    /** The activity this bundle records. */
    public static final Activity ACTIVITY = Activity.of("${activity}");

    /** Creates the component; DS binds the driver before activating it. */
    public ${deviceClass}ActivitySource() {
        super(ACTIVITY, ${deviceClass}Backend.TYPE);
    }

    /** Creates a source on a driver, for tests and for use without a framework. */
    public ${deviceClass}ActivitySource(${deviceClass}Driver driver) {
        super(ACTIVITY, driver);
    }

    /** Follows the highest-ranked driver; sessions recording now move to it. */
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(${deviceClass}Driver driver) {
        swapDriver(driver);
    }

    /** Nothing to do: DS binds the replacement first, or deactivates this component when none is left. */
    void unbindDriver(${deviceClass}Driver driver) {
    }
}
