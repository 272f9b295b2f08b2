package dev.vantage.profiler.api;

/**
 * Called with each completed cycle of a profile, as torch's {@code on_trace_ready}: at the end of every
 * {@link ProfilerAction#RECORD_AND_SAVE} step, and on stop when a cycle was recording. Runs on the thread that
 * called {@link Profile#step()} or {@link Profile#stop()}. A handler that throws is reported in the log and the
 * profile's metadata; the workload does not see it.
 */
@FunctionalInterface
public interface TraceReadyHandler {

    /**
     * Receives a completed cycle.
     *
     * @param result the cycle's events; stays valid after the call
     * @throws Exception if the handler fails; it is isolated and reported
     */
    void onTraceReady(ProfileResult result) throws Exception;
}
