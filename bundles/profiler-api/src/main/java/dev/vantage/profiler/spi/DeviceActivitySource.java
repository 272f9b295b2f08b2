package dev.vantage.profiler.spi;

import java.util.Map;
import java.util.Set;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.profiler.api.Activity;

/**
 * A device bundle's source of device activity. Registered as a service; the core asks every source when a profile
 * starts. A source loads its vendor tracing library lazily, at the first {@link #configure} call, never when its
 * bundle starts; if the library is missing it declines, and the CPU profile goes on.
 */
@ConsumerType
public interface DeviceActivitySource {

    /** Returns the activity this source serves, such as {@link Activity#NPU}. */
    Activity activity();

    /** Returns the device type name, such as {@code npu}. */
    String deviceType();

    /**
     * Prepares a session for one profile.
     *
     * @param requested the activities the profile records
     * @param config profile settings as strings
     * @return a session, or {@code null} when this source does not take part (not requested, or unavailable)
     */
    ActivitySession configure(Set<Activity> requested, Map<String, String> config);
}
