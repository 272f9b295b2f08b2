package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.Map;

import org.osgi.framework.ServiceReference;

import dev.vantage.exporter.files.internal.RunRegistryComponent;
import dev.vantage.ondemand.internal.OnDemandComponent;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * The profiler core on a plain class path, activated as SCR activates it in the platform: a test fixture the core
 * publishes in its test jar, for tools that measure it outside a framework (the benchmarks). It also hands over a
 * stopped profile's frozen window as the trace engine takes it, so that the engine's steps can be timed one by one
 * through the engine's public API.
 */
public final class StandaloneProfiler {

    private final ProfilerComponent component = new ProfilerComponent();

    public StandaloneProfiler(long maxEvents) {
        component.activate(config(maxEvents), Map.of());
    }

    /** The component's configuration with a cap of {@code maxEvents}, as Configuration Admin would pass it. */
    static ProfilerComponent.Config config(long maxEvents) {
        return new ProfilerComponent.Config() {
            @Override
            public long maxEvents() {
                return maxEvents;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return ProfilerComponent.Config.class;
            }
        };
    }

    public Profiler profiler() {
        return component;
    }

    /** Binds a device activity source, as SCR binds one in the platform. */
    public void addSource(dev.vantage.profiler.spi.DeviceActivitySource source) {
        component.addSource(source);
    }

    /** Binds a device's memory allocator, as SCR binds one in the platform. */
    public void addAllocator(MemoryAllocator allocator) {
        component.addAllocator(allocator);
    }

    /** Binds an exporter, as SCR binds one in the platform, under a reference without a bundle. */
    @SuppressWarnings("unchecked")
    public void addExporter(TraceExporter exporter) {
        component.addExporter(exporter, (ServiceReference<TraceExporter>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ServiceReference.class}, (p, m, a) -> null));
    }

    public void close() {
        if (onDemand != null) {
            onDemand.deactivate();
        }
        component.deactivate();
    }

    private OnDemandComponent onDemand;

    /** Starts the on-demand profiler over this core (registering its MBean), idle until a capture starts. */
    public OnDemandProfiler onDemand() {
        if (onDemand == null) {
            onDemand = new OnDemandComponent(component, new RunRegistryComponent(), new MemoryAdminComponent());
            onDemand.activate();
        }
        return onDemand;
    }

    /** Returns the events a stopped profile's last cycle dropped, read from the buffers without analysing them. */
    public static long dropped(Profile stopped) {
        long dropped = 0;
        for (ThreadBuffer.Snapshot s : ((ProfileSession) stopped).lastResult().frozen().threads()) {
            dropped += s.dropped();
        }
        return dropped;
    }

    /** Returns a stopped profile's last window as the trace engine takes it, unanalysed. */
    public static TraceData frozen(Profile stopped) {
        return ((ProfileSession) stopped).lastResult().frozen().traceData();
    }
}
