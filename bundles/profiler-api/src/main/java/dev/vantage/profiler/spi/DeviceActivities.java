package dev.vantage.profiler.spi;

import java.util.List;
import java.util.Map;

import dev.vantage.profiler.trace.TraceDevice;

/**
 * What an {@link ActivitySession} hands over after it stopped.
 *
 * @param devices the devices that took part, with their properties
 * @param activities device activities inside the capture window, on the host clock
 * @param metadata facts for the trace metadata (device properties, whether the device is emulated)
 * @param errors problems a user should see in the trace, such as a missing tracing library
 * @param droppedRecords records lost because a buffer was full or fell outside the capture window
 */
public record DeviceActivities(List<TraceDevice> devices, List<DeviceActivity> activities,
        Map<String, String> metadata, List<String> errors, long droppedRecords) {

    /** Copies the collections. */
    public DeviceActivities {
        devices = List.copyOf(devices);
        activities = List.copyOf(activities);
        metadata = Map.copyOf(metadata);
        errors = List.copyOf(errors);
    }
}
