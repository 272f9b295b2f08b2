package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.util.Map;

import dev.vantage.exporter.files.internal.RunRegistryComponent;
import dev.vantage.ondemand.internal.OnDemandComponent;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.TableOptions;

/**
 * Activates the profiler core on a plain class path, as SCR does in the platform, and reaches the post-processing
 * steps benchmarks time one by one. Lives in the core's package because those are package-private; benchmarks are
 * not part of any distribution.
 */
public final class BenchProfiler {

    private final ProfilerComponent component = new ProfilerComponent();

    public BenchProfiler(long maxEvents) {
        component.activate(new ProfilerComponent.Config() {
            @Override
            public long maxEvents() {
                return maxEvents;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return ProfilerComponent.Config.class;
            }
        }, Map.of());
    }

    public Profiler profiler() {
        return component;
    }

    /** Binds a device activity source, as SCR binds one in the platform. */
    public void addSource(dev.vantage.profiler.spi.DeviceActivitySource source) {
        component.addSource(source);
    }

    /** Binds a memory allocator, as SCR binds one in the platform, so that a profile can record {@code MEM}. */
    public void addAllocator(dev.vantage.profiler.spi.MemoryAllocator allocator) {
        component.addAllocator(allocator);
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

    /** Builds the tree, self times and correlation of a stopped profile's last cycle, fresh each call. */
    public static long analyse(Profile stopped) {
        Analysis a = new Analysis(((ProfileSession) stopped).lastResult().frozen());
        return a.eventCount;
    }

    /** Groups a stopped profile's last cycle by name and formats the table, fresh each call. */
    public static String keyAveragesTable(Profile stopped, boolean percentiles) {
        Analysis a = ((ProfileSession) stopped).lastResult().analysis();
        return KeyAveragesImpl.of(a, false, 0, false).table(new TableOptions(SortKey.SELF_CPU_TIME_TOTAL, 20,
                percentiles, false));
    }
}
