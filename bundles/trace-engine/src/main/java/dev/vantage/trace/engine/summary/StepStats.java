package dev.vantage.trace.engine.summary;

/**
 * One {@code ProfilerStep#N} and where its time went, in the categories of the TensorBoard profiler plugin's overview.
 * Each instant of the step counts once, in the first category busy at it, in this order: kernel, memcpy, memset,
 * communication, runtime, CPU op; the rest is other. Device work belongs to a step by the trace model's one rule
 * ({@code StepRule}: the step its launching operator started in) and counts whole, and the step's time runs to the
 * end of that work when it is later than the step's span ({@code TraceStep.durationNanos()}); host events count on
 * the step's thread, clipped to the span. So {@code durationNanos} is the step time every view of Vantage reports,
 * {@code kernel + memcpy + memset} is {@code step_trace_time.csv}'s {@code Computing}, {@code communication} its
 * {@code Communication(Not Overlapped)}, and with device work, {@code runtime + cpuOp + other} its {@code Free}.
 * Times are nanoseconds.
 *
 * @param step the step's number, N of {@code ProfilerStep#N}
 * @param startEpochNanos its start, in nanoseconds since the Unix epoch
 * @param durationNanos the step's time: from its start to the later of its span's end and its device work's end
 * @param kernelNanos time with compute kernels running
 * @param memcpyNanos time with copies and no kernel running
 * @param memsetNanos time with fills and neither kernels nor copies running
 * @param communicationNanos time with communication work and no compute work running
 * @param runtimeNanos time in device runtime calls with no device work running
 * @param cpuOpNanos time in other host events on the step's thread with no device work running
 * @param otherNanos the rest of the step
 */
public record StepStats(long step, long startEpochNanos, long durationNanos, long kernelNanos, long memcpyNanos,
        long memsetNanos, long communicationNanos, long runtimeNanos, long cpuOpNanos, long otherNanos) {
}
