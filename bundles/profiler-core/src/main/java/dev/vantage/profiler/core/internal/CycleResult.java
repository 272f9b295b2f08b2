package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.spi.ViewExporter;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.store.BlockSource;

/**
 * One completed cycle. The trace engine analyses it on first use, once, under this object's lock; nothing is
 * computed when the cycle completes. Events, key averages, the table and the trace all come from that one analysis.
 */
final class CycleResult implements ProfileResult {

    private final Cycle cycle;
    private final Outputs outputs;
    private AnalysedTrace trace;
    private KeyAverages keyAverages;

    /** How a result reaches the installed exporters: trace formats, and the views that are not traces. */
    interface Outputs {
        void export(Trace trace, String format, Path target) throws IOException;

        /**
         * Returns the view exporter.
         *
         * @throws IllegalStateException if none is installed
         */
        ViewExporter views();
    }

    CycleResult(Cycle cycle, Outputs outputs) {
        this.cycle = cycle;
        this.outputs = outputs;
    }

    /** Returns the frozen window, unanalysed. */
    Cycle frozen() {
        return cycle;
    }

    @Override
    public int cycle() {
        return cycle.number();
    }

    @Override
    public List<Long> steps() {
        List<Long> steps = new ArrayList<>();
        cycle.steps().forEach(s -> steps.add(s.step()));
        return Collections.unmodifiableList(steps);
    }

    @Override
    public List<ProfilerEvent> events() {
        return analysed().eventList();
    }

    @Override
    public synchronized KeyAverages keyAverages() {
        if (keyAverages == null) {
            keyAverages = analysed().keyAverages(false, 0);
        }
        return keyAverages;
    }

    @Override
    public KeyAverages keyAverages(boolean groupByInputShape, int groupByStackN) {
        return analysed().keyAverages(groupByInputShape, groupByStackN);
    }

    @Override
    public EventAverage totalAverage() {
        return keyAverages().totalAverage();
    }

    @Override
    public Trace trace() {
        return analysed();
    }

    /** The window analysed by the trace engine, on first use, once; its per-event columns are off the heap. */
    synchronized AnalysedTrace analysed() {
        if (trace == null) {
            trace = new AnalysedTrace(cycle.traceData(), BlockSource.DIRECT);
        }
        return trace;
    }

    @Override
    public void exportChromeTrace(Path path) throws IOException {
        export("chrome", path);
    }

    @Override
    public void export(String format, Path target) throws IOException {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(target, "target");
        outputs.export(trace(), format, target);
    }

    @Override
    public void exportStacks(Path path, StackMetric metric) throws IOException {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(metric, "metric");
        if (!cycle.options().withStack()) {
            throw new IllegalStateException("exportStacks needs a profile recorded with withStack(true)");
        }
        outputs.views().exportStacks(trace(), metric, path);
    }

    @Override
    public void exportMemoryTimeline(Path path, String device) throws IOException {
        Objects.requireNonNull(path, "path");
        if (!cycle.options().activities().contains(Activity.MEM)) {
            throw new IllegalStateException("exportMemoryTimeline needs a profile that records memory (the MEM"
                    + " activity, profileMemory(true))");
        }
        Trace t = trace();
        String d = device == null ? MemoryTimelines.defaultDevice(t) : MemoryTimelines.normalise(device);
        MemoryTimeline timeline = MemoryTimelines.build(t, cycle.recategorized(), cycle.preexisting(),
                cycle.epochOffsetNanos(), d);
        outputs.views().exportMemoryTimeline(timeline, path);
    }
}
