package dev.vantage.exporter.files.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.spi.ViewExporter;
import dev.vantage.profiler.trace.Trace;

/** The profiler's views that are not traces, in torch's file formats: memory timelines, snapshots, stacks. */
@Component(service = ViewExporter.class)
public class ViewExporterComponent implements ViewExporter {

    @Override
    public void exportMemoryTimeline(MemoryTimeline timeline, Path target) throws IOException {
        MemoryTimelineFiles.write(Objects.requireNonNull(timeline, "timeline"), Objects.requireNonNull(target,
                "target"));
    }

    @Override
    public void exportMemorySnapshot(MemorySnapshot snapshot, Path target) throws IOException {
        MemorySnapshotFiles.write(Objects.requireNonNull(snapshot, "snapshot"), Objects.requireNonNull(target,
                "target"));
    }

    @Override
    public void exportStacks(Trace trace, StackMetric metric, Path target) throws IOException {
        CollapsedStacks.write(Objects.requireNonNull(trace, "trace"), Objects.requireNonNull(target, "target"),
                Objects.requireNonNull(metric, "metric"));
    }
}
