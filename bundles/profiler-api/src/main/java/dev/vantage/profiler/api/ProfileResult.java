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

    /**
     * Writes the memory timeline of one device, as torch's {@code export_memory_timeline}, from the cycle's
     * {@code [memory]} events and the categories the runtime declared for them. The file name chooses the format:
     * <ul>
     * <li>{@code .json}: {@code [times, sizes]}, times in whole microseconds since the Unix epoch (torch's unit),
     *     {@code sizes[i]} the bytes allocated after {@code times[i]} as {@code [0, PARAMETER, OPTIMIZER_STATE,
     *     INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL, Unknown]};</li>
     * <li>{@code .json.gz}: the same, gzip-compressed;</li>
     * <li>{@code .raw.json.gz}: a gzip-compressed list of {@code [timestamp_ns, action, bytes, category]} with
     *     torch's action numbers (1 pre-existing, 2 create, 4 destroy) and category indexes (0 PARAMETER .. 7
     *     Unknown);</li>
     * <li>{@code .html}: a self-contained page with the timeline drawn as an SVG chart, stacked by category, with
     *     the reserved bytes as a line.</li>
     * </ul>
     * Written to a temporary name and renamed.
     *
     * @param path the file to write
     * @param device the device, such as {@code npu:0} or {@code cpu}; null for the first accelerator that has
     *     memory events, else {@code cpu}
     * @throws IllegalStateException if memory was not recorded (the {@code MEM} activity)
     * @throws IllegalArgumentException if the file name has none of those endings, or the device is malformed
     * @throws IOException if writing fails
     * @since 2.2
     */
    void exportMemoryTimeline(Path path, String device) throws IOException;
}
