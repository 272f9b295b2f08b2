package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.util.Map;

import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * The profiler core activated on a plain class path, as SCR activates it in the platform, for the ONNX Runtime
 * bundle's tests. In the core's package because its binding methods are package-private; test code only.
 */
public final class CoreForTests implements AutoCloseable {

    private final ProfilerComponent component = new ProfilerComponent();

    public CoreForTests(DeviceActivitySource source, MemoryAllocator allocator) {
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
    }

    public Profiler profiler() {
        return component;
    }

    @Override
    public void close() {
        component.deactivate();
    }
}
