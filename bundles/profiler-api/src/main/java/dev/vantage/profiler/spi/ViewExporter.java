package dev.vantage.profiler.spi;

import java.io.IOException;
import java.nio.file.Path;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.trace.Trace;

/**
 * Writes the profiler's views that are not traces, as torch writes them: the memory timeline
 * ({@code export_memory_timeline}), memory snapshots ({@code _dump_snapshot}) and collapsed stacks
 * ({@code export_stacks}). A bundle registers one as a whiteboard service; the profiler core computes the data and
 * hands it over, so that the core itself writes no file format. Each method writes to a temporary name and renames,
 * so a failure leaves nothing under the target's name. Implementations are thread-safe.
 */
@ConsumerType
public interface ViewExporter {

    /**
     * Writes a memory timeline; the file name chooses the format: {@code .json} ({@code [times, sizes]}, times in
     * whole microseconds), {@code .json.gz} (the same, gzip-compressed), {@code .raw.json.gz} (torch's raw rows) or
     * {@code .html} (a self-contained page with the timeline drawn).
     *
     * @throws IllegalArgumentException if the file name has none of those endings
     */
    void exportMemoryTimeline(MemoryTimeline timeline, Path target) throws IOException;

    /**
     * Writes a memory snapshot: a Python pickle (protocol 2, which PyTorch's {@code memory_viz} reads) unless the
     * name ends in {@code .json}, then JSON of the same structure.
     */
    void exportMemorySnapshot(MemorySnapshot snapshot, Path target) throws IOException;

    /**
     * Writes collapsed stacks that flame-graph tools read: one line per event with a stack and a value above 0,
     * frames outermost first joined by {@code ;}, the event's name as the innermost frame, a space and the value in
     * whole microseconds.
     */
    void exportStacks(Trace trace, StackMetric metric, Path target) throws IOException;
}
