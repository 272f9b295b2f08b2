package dev.vantage.device.cpu.internal;

import java.util.Map;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivitySource;

/**
 * The JVM's own activity, so that a trace shows when the JVM rather than the model took the time: every
 * garbage-collection pause during a CPU profile becomes an event on a GC track. Takes part in every profile that
 * records CPU activity.
 */
@Component(service = DeviceActivitySource.class)
public class JvmActivitySource implements DeviceActivitySource {

    @Override
    public Activity activity() {
        return Activity.CPU;
    }

    @Override
    public String deviceType() {
        return "jvm";
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        return requested.contains(Activity.CPU) ? new GcSession() : null;
    }
}
