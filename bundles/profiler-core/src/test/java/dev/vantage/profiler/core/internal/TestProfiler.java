package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.Map;

import org.osgi.framework.ServiceReference;

import dev.vantage.exporter.files.internal.ViewExporterComponent;

/** Activates a {@link ProfilerComponent} outside OSGi, as SCR would, with the files bundle's view exporter. */
final class TestProfiler {

    private TestProfiler() {
    }

    static ProfilerComponent activate(long maxEvents) {
        ProfilerComponent p = new ProfilerComponent();
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
}
