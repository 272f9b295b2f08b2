package dev.vantage.profiler.api;

/** What a profile does during one step, as torch's {@code ProfilerAction}. */
public enum ProfilerAction {
    /** Nothing is recorded. */
    NONE,
    /** Device sessions are prepared; nothing is kept. */
    WARMUP,
    /** Events are recorded. */
    RECORD,
    /** Events are recorded; the cycle ends with this step and its trace is delivered. */
    RECORD_AND_SAVE
}
