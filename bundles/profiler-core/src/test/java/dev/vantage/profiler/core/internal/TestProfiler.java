package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.util.Map;

/** Activates a {@link ProfilerComponent} outside OSGi, as SCR would, for unit tests. */
final class TestProfiler {

    private TestProfiler() {
    }

    static ProfilerComponent activate(long maxEvents) {
        ProfilerComponent p = new ProfilerComponent();
        p.activate(config(maxEvents), Map.of("maxEvents", maxEvents));
        return p;
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
