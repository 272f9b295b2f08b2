package dev.vantage.profiler.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.profiler.trace.Trace;

/**
 * The recorded events of one completed cycle of a profile, as a {@link TraceReadyHandler} receives them and as
 * a stopped {@link Profile} holds its last cycle. Everything here is computed on first use and then kept;
 * thread-safe.
 */
@ProviderType
public interface ProfileResult {

    /** Returns the cycle number, from 1; each RECORD_AND_SAVE step ends one cycle. */
    int cycle();

    /** Returns the steps this cycle recorded, in order; empty without a schedule. */
    List<Long> steps();

    /** Returns every event: host events per thread in recording order, threads by first event, then device work. */
    List<ProfilerEvent> events();

    /** Returns statistics grouped by event name. */
    KeyAverages keyAverages();

    /**
     * Returns statistics grouped by event name and, optionally, input shapes and calling stack.
     *
     * @param groupByInputShape also group by the input shapes (needs shapes recorded)
     * @param groupByStackN also group by the innermost n frames of the calling stack (needs stacks recorded); 0
     *     for no stack grouping
     * @throws IllegalArgumentException if groupByStackN is negative
     */
    KeyAverages keyAverages(boolean groupByInputShape, int groupByStackN);

    /** Returns one row summing every event, as torch's {@code total_average()}. */
    EventAverage totalAverage();

    /** Returns the trace, as exporters see it. */
    Trace trace();

    /**
     * Writes the trace in Chrome trace format ({@code .json}, or gzip-compressed when the name ends in {@code .gz}).
     *
     * @throws IllegalArgumentException if no {@code chrome} exporter is installed
     * @throws IOException if writing fails
     */
    void exportChromeTrace(Path path) throws IOException;

    /**
     * Writes the trace with the exporter of a format.
     *
     * @throws IllegalArgumentException if no installed exporter has that format
     * @throws IOException if writing fails
     */
    void export(String format, Path target) throws IOException;

    /**
     * Writes collapsed stacks that flame-graph tools read: one line per event with a stack and a value above 0,
     * frames outermost first joined by {@code ;}, the event's name as the innermost frame, a space and the value
     * in whole microseconds. Written to a temporary name and renamed.
     *
     * @throws IllegalStateException if stacks were not recorded ({@code withStack})
     * @throws IOException if writing fails
     */
    void exportStacks(Path path, StackMetric metric) throws IOException;
}
