package dev.vantage.profiler.core.internal;

import java.lang.reflect.Proxy;
import java.util.Map;

import org.junit.rules.ExternalResource;
import org.osgi.framework.ServiceReference;

import dev.vantage.exporter.files.internal.ViewExporterComponent;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * A {@link ProfilerComponent} activated outside OSGi as SCR would, with the files bundle's view exporter: as a rule
 * ({@code @Rule public final TestProfiler active = new TestProfiler(1_000_000)}), active for each test and
 * deactivated after it, or by {@link #activate(long)} for a test that manages its own.
 */
final class TestProfiler extends ExternalResource {

    private final long maxEvents;
    private final ProfilerComponent component = new ProfilerComponent();
    private boolean active;

    TestProfiler(long maxEvents) {
        this.maxEvents = maxEvents;
    }

    /** The component this rule activates before each test; not yet active while the test's fields are set. */
    ProfilerComponent component() {
        return component;
    }

    @Override
    protected void before() {
        activate(component, maxEvents);
        active = true;
    }

    /** Deactivates the component before the test ends, as SCR does when its bundle stops. */
    void deactivate() {
        if (active) {
            active = false;
            component.deactivate();
        }
    }

    @Override
    protected void after() {
        deactivate();
    }

    static ProfilerComponent activate(long maxEvents) {
        return activate(new ProfilerComponent(), maxEvents);
    }

    private static ProfilerComponent activate(ProfilerComponent p, long maxEvents) {
        p.activate(config(maxEvents), Map.of("maxEvents", maxEvents));
        // the files of memory timelines, stacks and snapshots are the files bundle's, as in a distribution
        p.setViews(new ViewExporterComponent());
        return p;
    }

    /** A service reference as SCR passes with a bound service, here for a bundle that is not known. */
    @SuppressWarnings("unchecked")
    static <S> ServiceReference<S> reference() {
        // every method of this stand-in answers null: no bundle, no properties
        return (ServiceReference<S>) Proxy.newProxyInstance(TestProfiler.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (proxy, method, args) -> null);
    }

    /** An allocator with no figures of its own, on {@code device}: what it reports goes through MemoryEvents. */
    static MemoryAllocator allocator(String device) {
        return new MemoryAllocator() {
            @Override
            public String device() {
                return device;
            }

            @Override
            public MemoryStats stats() {
                return new MemoryStats(device, Map.of());
            }

            @Override
            public void resetPeakStats() {
            }
        };
    }

    static ProfilerComponent.Config config(long maxEvents) {
        return StandaloneProfiler.config(maxEvents);
    }
}
