package dev.vantage.profiler.core.internal;

import java.lang.annotation.Annotation;
import java.util.Map;

import dev.vantage.profiler.api.Profiler;

/**
 * Activates the profiler core on a plain class path, as SCR does in the platform. Lives in the core's package
 * because activation is package-private there; benchmarks are not part of any distribution.
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

    public void close() {
        component.deactivate();
    }
}
