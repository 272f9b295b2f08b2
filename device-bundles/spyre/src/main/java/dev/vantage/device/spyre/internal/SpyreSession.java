package dev.vantage.device.spyre.internal;

import java.util.Map;

import dev.vantage.device.kit.DriverSession;
import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.device.spyre.driver.SpyreTracing;

/** A profile's session over a Spyre driver whose tracing library is loaded; names the library in the metadata. */
final class SpyreSession extends DriverSession {

    private final SpyreTracing tracing;

    SpyreSession(SpyreDriver driver, SpyreTracing tracing, Map<String, String> config) {
        super(driver, config);
        this.tracing = tracing;
    }

    @Override
    protected Map<String, String> extraMetadata() {
        return Map.of("tracing_library", tracing.description(), "kernel_naming", "spyre_kernel_v1");
    }
}
