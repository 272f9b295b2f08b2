package dev.vantage.device.spyre.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.trace.TraceDevice;

/**
 * The session of a profile that asked for Spyre activity when the tracing library is unavailable: it records
 * nothing, and hands over the devices and one error saying why the trace has CPU-side events only.
 */
final class UnavailableSession implements ActivitySession {

    private final SpyreDriver driver;
    private final String error;

    UnavailableSession(SpyreDriver driver, String error) {
        this.driver = driver;
        this.error = error;
    }

    @Override
    public void start() {
    }

    @Override
    public void stop() {
    }


    @Override
    public DeviceActivities collect() {
        List<TraceDevice> devices = new ArrayList<>();
        for (int d = 0; d < driver.deviceCount(); d++) {
            devices.add(new TraceDevice(driver.deviceType(), d, driver.emulated(), driver.properties(d)));
        }
        return new DeviceActivities(devices, List.of(), Map.of("emulated", Boolean.toString(driver.emulated()),
                "tracing_library", "unavailable"), List.of(error), 0);
    }
}
