package dev.vantage.trace.engine;

import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.trace.EventKind;

/** The profiler's {@link ProfilerEvent}: one recorded event, its lists copied. */
record RecordedEvent(long id, String name, EventKind kind, long threadId, long startNanos, long endNanos, long parentId, List<Long> childIds, long step, String deviceType, int deviceIndex, long streamId, long correlationId, long sequenceNumber, long forwardThreadId, List<List<Long>> inputShapes, List<String> inputTypes, List<String> stack, long flops, long cpuMemoryBytes, long deviceMemoryBytes) implements ProfilerEvent {

    RecordedEvent {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(deviceType, "deviceType");
        childIds = List.copyOf(childIds);
        inputShapes = List.copyOf(inputShapes);
        inputTypes = List.copyOf(inputTypes);
        stack = List.copyOf(stack);
    }
}
