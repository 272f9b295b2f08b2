package dev.vantage.profiler.api;

import org.osgi.annotation.versioning.ConsumerType;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Called with each completed cycle of a profile, as torch's {@code on_trace_ready}: at the end of every
 * {@link ProfilerAction#RECORD_AND_SAVE} step, and on stop when a cycle was recording. Runs on the thread that
 * called {@link Profile#step()} or {@link Profile#stop()}. A handler that throws is reported in the log and the
 * profile's metadata; the workload does not see it.
 */
@ConsumerType
@FunctionalInterface
public interface TraceReadyHandler {

    /**
     * Receives a completed cycle.
     *
     * @param result the cycle's events; stays valid after the call
     * @throws Exception if the handler fails; it is isolated and reported
     */
    void onTraceReady(ProfileResult result) throws Exception;

    /**
     * A handler that writes each cycle with an exporter, as torch's
     * {@code tensorboard_trace_handler(dir_name)}: {@code exportTo("tensorboard", logDir.resolve("run1"))} adds a
     * trace per cycle to a TensorBoard run directory.
     *
     * @param format an installed exporter format, such as {@code tensorboard} or {@code chrome}
     * @param target the file or directory the exporter writes; for the tensorboard format, the run directory
     * @return the handler
     */
    static TraceReadyHandler exportTo(String format, Path target) {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(target, "target");
        return result -> result.export(format, target);
    }

    /** Same as {@code exportTo("tensorboard", runDirectory)}: torch's {@code tensorboard_trace_handler}. */
    static TraceReadyHandler tensorboard(Path runDirectory) {
        return exportTo("tensorboard", runDirectory);
    }
}
