package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.Map;

import org.osgi.framework.ServiceReference;

import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * The profiler core activated on a plain class path, as SCR activates it in the agent's platform, with a device
 * source and exporters bound, for the agent bundle's tests. In the core's package because its binding methods are
 * package-private; test code only.
 */
public final class AgentCoreForTests implements AutoCloseable {

    private final ProfilerComponent component = new ProfilerComponent();

    @SuppressWarnings("unchecked")
    public AgentCoreForTests(DeviceActivitySource source, MemoryAllocator allocator, TraceExporter... exporters) {
        component.activate(new ProfilerComponent.Config() {
            @Override
            public long maxEvents() {
                return 4_000_000;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return ProfilerComponent.Config.class;
            }
        }, Map.of());
        component.addSource(source);
        component.addAllocator(allocator);
        for (TraceExporter e : exporters) {
            // a reference without a bundle, as a test has none
            ServiceReference<TraceExporter> ref = (ServiceReference<TraceExporter>) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {ServiceReference.class}, (p, m, a) -> null);
            component.addExporter(e, ref);
        }
    }

    public Profiler profiler() {
        return component;
    }

    @Override
    public void close() {
        component.deactivate();
    }
}
