package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.trace.engine.MemoryEvents;
import dev.vantage.trace.engine.summary.MemoryCurve;

/**
 * The TensorBoard plugin's Memory view: each device's allocated and reserved bytes after every {@code [memory]}
 * event (the engine keeps at most a few thousand points a curve, the largest of each slice), and the peaks.
 */
@Component(service = BoardView.class)
public class MemoryView implements BoardView {

    private static final double MIB = 1024.0 * 1024.0;

    @Override
    public String id() {
        return "memory";
    }

    @Override
    public String title() {
        return "Memory";
    }

    @Override
    public int order() {
        return 40;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return !run.summary().memory().isEmpty() || run.tags().containsKey(SnapshotSegments.TAG);
    }

    @Override
    public List<ViewSection> render(BoardRun run) throws java.io.IOException {
        List<MemoryCurve> curves = run.summary().memory();
        long first = curves.stream().flatMap(c -> c.points().stream()).mapToLong(MemoryCurve.Point::epochNanos).min()
                .orElse(0);
        List<Object> series = new ArrayList<>();
        for (MemoryCurve c : curves) {
            for (String kind : List.of("allocated", "reserved")) {
                List<List<Double>> data = new ArrayList<>();
                for (MemoryCurve.Point p : c.points()) {
                    long bytes = kind.equals("allocated") ? p.allocatedBytes() : p.reservedBytes();
                    data.add(List.of(Charts.ms(p.epochNanos() - first), Math.round(bytes / MIB * 1000) / 1000.0));
                }
                series.add(Map.of("name", c.device() + " " + kind, "type", "line", "step", "end", "showSymbol", false,
                        "data", data));
            }
        }
        Map<String, Object> option = overTime(series);
        List<List<Object>> rows = new ArrayList<>();
        curves.forEach(c -> rows.add(List.of(c.device(), c.events(), c.peakAllocatedBytes(), c.peakReservedBytes())));
        List<ViewSection> sections = new ArrayList<>(List.of(
                ViewSection.chart("memory-chart", "Memory curve", "Allocator totals after each [memory] event, per"
                        + " device, in MiB, from the trace's first point. Scroll or drag the bar to zoom.", option),
                ViewSection.table("memory-peaks", "Peaks", null, List.of(new Column("Device", Unit.TEXT),
                        new Column("Memory events", Unit.NUMBER), new Column("Peak allocated", Unit.BYTES),
                        new Column("Peak reserved", Unit.BYTES)), rows)));
        String snapshot = run.tags().get(SnapshotSegments.TAG);
        if (snapshot != null) {
            sections.add(segments(run.file().getParent().resolve(snapshot), snapshot));
        }
        if (curves.isEmpty()) {
            // a snapshot without [memory] events: its segments are all there is
            return sections.subList(2, sections.size());
        }
        MemoryEvents events = run.read(MemoryEvents::of);
        if (events.categories().isEmpty()) {
            sections.add(ViewSection.text("memory-categories", "Memory by category", "This trace's memory events"
                    + " carry no category (torch writes none; Vantage's own traces do)."));
        } else {
            events.curves().forEach((device, points) -> sections.add(categories(device, points,
                    events.categories())));
        }
        sections.add(ViewSection.table("memory-by-operator", "Allocations and frees by operator", "The TensorBoard"
                + " plugin's memory statistics: each [memory] event counted to the innermost event enclosing it on"
                + " its thread, most bytes allocated first.", List.of(new Column("Device", Unit.TEXT),
                        new Column("Operator", Unit.TEXT), new Column("Allocations", Unit.NUMBER),
                        new Column("Allocated", Unit.BYTES), new Column("Frees", Unit.NUMBER),
                        new Column("Freed", Unit.BYTES), new Column("Increase", Unit.BYTES)), events.byOperator()));
        sections.add(ViewSection.table("memory-blocks", "Memory events", "The TensorBoard plugin's memory events:"
                + " each allocation matched to its free by address, largest first; times in µs from the trace's"
                + " start, empty for a block the trace never frees.", List.of(new Column("Device", Unit.TEXT),
                        new Column("Operator", Unit.TEXT), new Column("Size", Unit.BYTES),
                        new Column("Allocated at", Unit.NANOS), new Column("Released at", Unit.NANOS),
                        new Column("Held", Unit.NANOS)), events.blocks()));
        return sections;
    }

    /** A zoomable chart of MiB over milliseconds, its tooltip on the time axis. */
    private static Map<String, Object> overTime(List<Object> series) {
        Map<String, Object> option = new LinkedHashMap<>();
        option.put("tooltip", Map.of("trigger", "axis"));
        option.put("legend", Map.of("top", 0));
        option.put("grid", Map.of("left", 70, "right", 20, "top", 40, "bottom", 50));
        option.put("xAxis", Map.of("type", "value", "name", "ms", "nameLocation", "middle", "nameGap", 28));
        option.put("yAxis", Map.of("type", "value", "name", "MiB"));
        option.put("dataZoom", List.of(Map.of("type", "inside"), Map.of("type", "slider", "height", 16)));
        option.put("series", series);
        return option;
    }

    /** The snapshot's segments, or why they cannot be shown. */
    private static ViewSection segments(java.nio.file.Path file, String name) {
        try {
            List<List<Object>> rows = SnapshotSegments.read(file);
            return ViewSection.table("memory-segments", "Snapshot segments", "The segments of the memory snapshot "
                    + name + " (torch's _snapshot(), as memory_viz's segment view shows them), largest first.",
                    List.of(new Column("Device", Unit.NUMBER), new Column("Address", Unit.TEXT),
                            new Column("Stream", Unit.NUMBER), new Column("Pool", Unit.TEXT),
                            new Column("Total", Unit.BYTES), new Column("Allocated", Unit.BYTES),
                            new Column("Active", Unit.BYTES), new Column("Requested", Unit.BYTES),
                            new Column("Blocks", Unit.NUMBER), new Column("Allocated blocks", Unit.NUMBER)), rows);
        } catch (java.io.IOException e) {
            return ViewSection.text("memory-segments", "Snapshot segments", "The memory snapshot " + name
                    + " could not be read: " + e.getMessage());
        }
    }

    /** A device's bytes by category, stacked, in MiB over ms. */
    private static ViewSection categories(String device, List<long[]> points, List<String> categories) {
        List<Object> series = new ArrayList<>();
        for (int k = 0; k < categories.size(); k++) {
            List<List<Double>> data = new ArrayList<>();
            for (long[] p : points) {
                data.add(List.of(Charts.ms(p[0]), Math.round(p[k + 1] / MIB * 1000) / 1000.0));
            }
            series.add(Map.of("name", categories.get(k), "type", "line", "step", "end", "stack", "bytes",
                    "areaStyle", Map.of(), "showSymbol", false, "data", data));
        }
        Map<String, Object> option = overTime(series);
        return ViewSection.chart("memory-categories-" + device.replaceAll("[^A-Za-z0-9-]", "-"), "Memory by category, "
                + device, "Bytes held in each memory category after each [memory] event, stacked, in MiB, from the"
                + " trace's start; a free is taken from its block's category.", option);
    }
}
