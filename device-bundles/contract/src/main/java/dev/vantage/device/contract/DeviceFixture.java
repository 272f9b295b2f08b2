package dev.vantage.device.contract;

import java.util.Objects;

import dev.vantage.device.kit.TracingDriver;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.tensor.spi.Backend;

/**
 * One device bundle's components, built outside OSGi for the contract suite, as Declarative Services would wire
 * them.
 *
 * @param backend the bundle's backend
 * @param source its activity source, or null when the device has no activity of its own (the host)
 * @param activity the activity the source serves, or null without a source
 * @param driver the tracing side of its driver, or null without a source
 * @param allocator its allocator
 * @param capacityBytes the device memory the fixture configured, or -1 when the device has no capacity of its
 *     own (the host heap)
 * @param close releases what the components hold (worker threads, pools)
 */
public record DeviceFixture(Backend backend, DeviceActivitySource source, Activity activity, TracingDriver driver,
        MemoryAllocator allocator, long capacityBytes, Runnable close) {

    /** Checks the fields. */
    public DeviceFixture {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(allocator, "allocator");
        Objects.requireNonNull(close, "close");
        if ((source == null) != (activity == null) || (source == null) != (driver == null)) {
            throw new IllegalArgumentException("a source needs its activity and driver, and neither without one");
        }
    }
}
