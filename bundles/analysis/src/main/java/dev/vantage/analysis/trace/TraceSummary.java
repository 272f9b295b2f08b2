package dev.vantage.analysis.trace;

import java.util.List;

/**
 * What {@link TraceReader} computes from one Chrome/Kineto trace: the numbers of the TensorBoard profiler plugin's
 * overview, operator, kernel and memory views. Lists are immutable; times are nanoseconds.
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
 */
public record TraceSummary(String source, int rank, int worldSize, long events, List<OpStats> ops,
        List<OpStats> opsByShape, List<KernelStats> kernels, List<KernelStats> kernelsByOp, List<StepStats> steps,
        List<MemoryCurve> memory) {

    /** Copies the lists. */
    public TraceSummary {
        ops = List.copyOf(ops);
        opsByShape = List.copyOf(opsByShape);
        kernels = List.copyOf(kernels);
        kernelsByOp = List.copyOf(kernelsByOp);
        steps = List.copyOf(steps);
        memory = List.copyOf(memory);
    }
}
