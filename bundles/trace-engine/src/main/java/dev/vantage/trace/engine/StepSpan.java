package dev.vantage.trace.engine;

/**
 * One {@code ProfilerStep#N} span: the parent of the events on its thread that began inside it at the top level.
 *
 * @param number the step number N
 * @param threadId the thread that ran the step
 * @param startNanos its start, on the trace's clock
 * @param endNanos its end, on the same clock
 */
public record StepSpan(long number, long threadId, long startNanos, long endNanos) {

    /** Returns the step's name, {@code ProfilerStep#N}. */
    public String name() {
        return "ProfilerStep#" + number;
    }
}
