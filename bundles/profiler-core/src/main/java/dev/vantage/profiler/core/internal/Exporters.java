package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.vantage.profiler.api.ExporterInfo;
import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.ViewExporter;
import dev.vantage.profiler.trace.Trace;

/**
 * The outputs the platform has installed: the trace exporters by format, and the view exporter (memory timelines,
 * snapshots, stacks). The profiler component binds them as they come and go; a finished cycle exports through this
 * object, not through the component that recorded it. Thread-safe: the lists are copy-on-write, the view exporter a
 * volatile field.
 */
final class Exporters implements CycleResult.Outputs {

    /** An exporter and the bundle that registered it. */
    record Bound(TraceExporter exporter, String format, ExporterInfo info) {
    }

    private final List<Bound> exporters = new CopyOnWriteArrayList<>();
    private volatile ViewExporter views;

    void add(TraceExporter exporter, String bundle, String version) {
        String format = exporter.format();
        exporters.add(new Bound(exporter, format, new ExporterInfo(format, bundle, version)));
    }

    void remove(TraceExporter exporter) {
        exporters.removeIf(b -> b.exporter() == exporter);
    }

    void views(ViewExporter exporter) {
        this.views = exporter;
    }

    /** Forgets the view exporter if it is this one. */
    void removeViews(ViewExporter exporter) {
        if (views == exporter) {
            views = null;
        }
    }

    Set<String> formats() {
        Set<String> formats = new TreeSet<>();
        for (Bound e : exporters) {
            formats.add(e.format());
        }
        return formats;
    }

    List<ExporterInfo> infos() {
        List<ExporterInfo> list = new ArrayList<>();
        for (Bound e : exporters) {
            list.add(e.info());
        }
        list.sort(Comparator.comparing(ExporterInfo::format).thenComparing(ExporterInfo::bundle));
        return list;
    }

    /**
     * Returns the exporter of a format; the first bound wins when two bundles claim one format.
     *
     * @throws IllegalArgumentException if none is installed
     */
    TraceExporter exporter(String format) {
        for (Bound e : exporters) {
            if (e.format().equals(format)) {
                return e.exporter();
            }
        }
        throw new IllegalArgumentException("no exporter for format '" + format + "'; installed: " + formats());
    }

    @Override
    public void export(Trace trace, String format, Path target) throws IOException {
        Objects.requireNonNull(trace, "trace");
        TraceExporter exporter = exporter(Objects.requireNonNull(format, "format"));
        try {
            exporter.export(trace, Objects.requireNonNull(target, "target"));
        } catch (RuntimeException | LinkageError e) {
            // an exporter bug must not take the caller down; the trace stays readable and other formats work
            throw new IOException("exporter '" + format + "' failed: " + e, e);
        }
    }

    @Override
    public ViewExporter views() {
        ViewExporter v = views;
        if (v == null) {
            throw new IllegalStateException("no view exporter is installed (bundle dev.vantage.exporter.files"
                    + " writes memory timelines, snapshots and stacks)");
        }
        return v;
    }
}
