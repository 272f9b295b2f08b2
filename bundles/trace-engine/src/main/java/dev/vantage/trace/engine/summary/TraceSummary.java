package dev.vantage.trace.engine.summary;

import java.util.List;
import java.util.Map;

/**
 * What {@link TraceReader} computes from one trace: the numbers of the TensorBoard profiler plugin's overview,
 * operator, kernel, memory and distributed views. Lists are immutable; times are nanoseconds.
 *
 * @param source the trace file's name (without its directory); never null
 * @param rank the rank from {@code distributedInfo}, or -1 when the trace has none
 * @param worldSize the world size from {@code distributedInfo}, or 1 when the trace has none
 * @param events the complete ({@code "ph": "X"}) and memory events read
 * @param ops host operators ({@code cpu_op}) by name, by total time, longest first
 * @param opsByShape host operators by name and input shapes, by total time, longest first
 * @param kernels device work by name, by total time, longest first
 * @param kernelsByOp device work by name and launching operator, by total time, longest first
 * @param steps the {@code ProfilerStep#N} spans in time order
 * @param memory one curve per device with {@code [memory]} events, by device name
 * @param format what was read: {@code kineto} (torch's JSON object), {@code legacy} (torch's array without
 *     Kineto) or {@code perfetto} (a {@code .pftrace})
 * @param categories every event by category as written ({@code ""} for none), in the order first seen; unknown
 *     categories included
 * @param unknownEvents complete events of categories the reader has no meaning for, kept as host events
 * @param kernelLaunches kernels by name and launch geometry, with occupancy and Tensor Core use, by total time
 * @param collectives communication device work by collective, by total time
 * @param overlap the devices' computation and communication, as {@code vantage analyze} computes them
 */
public record TraceSummary(String source, int rank, int worldSize, long events, List<OpStats> ops,
        List<OpStats> opsByShape, List<KernelStats> kernels, List<KernelStats> kernelsByOp, List<StepStats> steps,
        List<MemoryCurve> memory, String format, Map<String, Long> categories, long unknownEvents,
        List<KernelLaunchStats> kernelLaunches, List<CollectiveStats> collectives, DeviceOverlap overlap) {

    /** Copies the lists. */
    public TraceSummary {
        ops = List.copyOf(ops);
        opsByShape = List.copyOf(opsByShape);
        kernels = List.copyOf(kernels);
        kernelsByOp = List.copyOf(kernelsByOp);
        steps = List.copyOf(steps);
        memory = List.copyOf(memory);
        categories = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(categories));
        kernelLaunches = List.copyOf(kernelLaunches);
        collectives = List.copyOf(collectives);
        overlap = overlap == null ? DeviceOverlap.NONE : overlap;
    }

    /** Returns this summary with a rank and world size the trace did not say (taken from its file's name). */
    public TraceSummary withRank(int newRank, int newWorldSize) {
        return new TraceSummary(source, newRank, newWorldSize, events, ops, opsByShape, kernels, kernelsByOp, steps,
                memory, format, categories, unknownEvents, kernelLaunches, collectives, overlap);
    }

    /** A summary without the facts of a read file: for summaries made by hand. */
    public TraceSummary(String source, int rank, int worldSize, long events, List<OpStats> ops,
            List<OpStats> opsByShape, List<KernelStats> kernels, List<KernelStats> kernelsByOp, List<StepStats> steps,
            List<MemoryCurve> memory) {
        this(source, rank, worldSize, events, ops, opsByShape, kernels, kernelsByOp, steps, memory, "kineto", Map.of(),
                0, List.of(), List.of(), DeviceOverlap.NONE);
    }
}
