package dev.vantage.trace.engine;

import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.trace.EventKind;

/** The engine's {@link EventAverage}: one row of key averages, its stack copied, with the kind of its events. */
record Average(EventKind kind, String key, long count, long cpuTotalNanos, long selfCpuNanos, long deviceTotalNanos, long selfDeviceNanos, String inputShapes, List<String> stack, long flops, long p50Nanos, long p99Nanos, long maxNanos, long cpuMemoryBytes, long selfCpuMemoryBytes, long deviceMemoryBytes, long selfDeviceMemoryBytes) implements EventAverage {

    Average {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(inputShapes, "inputShapes");
        stack = List.copyOf(stack);
    }
}
