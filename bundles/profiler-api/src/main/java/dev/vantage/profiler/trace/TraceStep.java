package dev.vantage.profiler.trace;

/**
 * One step of a trace: torch's {@code ProfilerStep#N} span on the thread that called {@code step()}, and how long the
 * step's time lasts once the device work attributed to it ({@link StepRule}) is counted: as the TensorBoard profiler
 * plugin extends a step to its last kernel, a step's time runs from its start to the later of its end and the end
 * of its device work. Times are nanoseconds since the Unix epoch.
 *
 * @param number N of {@code ProfilerStep#N}
 * @param startEpochNanos the span's start
 * @param endEpochNanos the span's end
 * @param deviceEndEpochNanos the end of the last device work attributed to the step, or {@code startEpochNanos} when
 *     it has none
 */
public record TraceStep(long number, long startEpochNanos, long endEpochNanos, long deviceEndEpochNanos) {

    /**
     * Checks the times.
     *
     * @throws IllegalArgumentException if the span ends before it starts, or the device work before the start
     */
    public TraceStep {
        if (endEpochNanos < startEpochNanos || deviceEndEpochNanos < startEpochNanos) {
            throw new IllegalArgumentException("step " + number + " ends before it starts: " + startEpochNanos + ".."
                    + endEpochNanos + " (device work until " + deviceEndEpochNanos + ")");
        }
    }

    /** Returns the end of the step's time: the later of the span's end and its device work's end. */
    public long timeEndEpochNanos() {
        return Math.max(endEpochNanos, deviceEndEpochNanos);
    }

    /**
     * Returns the step's time, the figure every view of Vantage reports per step (the csv exporter's
     * {@code step_trace_time.csv}, TensorBoard's {@code step_time_ms}, the Parquet {@code steps} table,
     * {@code vantage report} and {@code vantage analyze}): from the start to {@link #timeEndEpochNanos()}.
     */
    public long durationNanos() {
        return timeEndEpochNanos() - startEpochNanos;
    }
}
