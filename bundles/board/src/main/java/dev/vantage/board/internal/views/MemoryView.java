package dev.vantage.board.internal.views;

import java.io.IOException;
import java.nio.file.Path;
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
import dev.vantage.trace.engine.MemoryTimelineFile;
import dev.vantage.trace.engine.summary.MemoryCurve;

/**
 * The TensorBoard plugin's Memory view: each device's allocated and reserved bytes after every {@code [memory]}
 * event (the engine keeps at most a few thousand points a curve, the largest of each slice) and the peaks; the bytes
 * by category (the run's memory timeline, else the trace's categories); the plugin's memory statistics by operator
 * and memory events (the engine's {@link MemoryEvents}); and the segments of the run's memory snapshot.
 */
@Component(service = BoardView.class)
public class MemoryView implements BoardView {

    /** The run tag that names the run's memory timeline JSON: its path from the trace's folder. */
    public static final String TIMELINE_TAG = "memory_timeline";

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
    public List<ViewSection> render(BoardRun run) throws IOException {
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
        String timeline = run.tags().get(TIMELINE_TAG);
        if (timeline != null) {
            sections.add(timeline(run.file().getParent().resolve(timeline), timeline, run.tags().get("device")));
        } else if (events.categories().isEmpty()) {
            sections.add(ViewSection.text("memory-categories", "Memory by category", "This run has no memory"
                    + " timeline and its [memory] events carry no category (torch writes none; Vantage's own traces"
                    + " and its memory timeline export do), so there are no categories to show."));
        } else {
            events.curves().forEach((device, points) -> sections.add(categories(device, points,
                    events.categories(), "Bytes held in each memory category after each [memory] event, stacked,"
                    + " in MiB, from the trace's start; a free is taken from its block's category.", 0)));
        }
        sections.add(ViewSection.table("memory-by-operator", "Memory statistics by operator", "The TensorBoard"
                + " plugin's memory statistics: each [memory] event given to the innermost operator enclosing it on"
                + " its thread; the operator's own allocations, frees and increase, then with its children's."
                + (events.outsideOperators() > 0 ? " " + events.outsideOperators() + " events lie in no operator"
                        + " (in a step only, the DataLoader or an optimizer) and are in no row, as in the plugin."
                        : ""), List.of(new Column("Device", Unit.TEXT), new Column("Operator", Unit.TEXT),
                        new Column("Calls", Unit.NUMBER), new Column("Allocations", Unit.NUMBER),
                        new Column("Allocated", Unit.BYTES), new Column("Frees", Unit.NUMBER),
                        new Column("Freed", Unit.BYTES), new Column("Increase", Unit.BYTES),
                        new Column("Allocations with children", Unit.NUMBER),
                        new Column("Allocated with children", Unit.BYTES),
                        new Column("Increase with children", Unit.BYTES)), events.byOperator()));
        if (!events.addressed()) {
            sections.add(ViewSection.text("memory-blocks", "Memory events", "This trace's [memory] events carry no"
                    + " address (torch wrote none before 1.10), so no allocation can be matched to its free."));
        } else {
            sections.add(ViewSection.table("memory-blocks", "Memory events", "The TensorBoard plugin's memory"
                    + " events: each allocation matched to the next free of its address, largest first; times in µs"
                    + " from the trace's start. A block never freed in the trace has no release, a free of a block"
                    + " allocated before it no allocation; aten::empty is named with the operator around it.",
                    List.of(new Column("Device", Unit.TEXT), new Column("Operator", Unit.TEXT),
                            new Column("Size", Unit.BYTES), new Column("Allocated at", Unit.NANOS),
                            new Column("Released at", Unit.NANOS), new Column("Held", Unit.NANOS)),
                    events.blocks()));
        }
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
    private static ViewSection segments(Path file, String name) {
        try {
            List<List<Object>> rows = SnapshotSegments.read(file);
            return ViewSection.table("memory-segments", "Snapshot segments", "The segments of the memory snapshot "
                    + name + " (torch's _snapshot(), as memory_viz's segment view shows them), largest first.",
                    List.of(new Column("Device", Unit.NUMBER), new Column("Address", Unit.TEXT),
                            new Column("Stream", Unit.NUMBER), new Column("Pool", Unit.TEXT),
                            new Column("Total", Unit.BYTES), new Column("Allocated", Unit.BYTES),
                            new Column("Active", Unit.BYTES), new Column("Requested", Unit.BYTES),
                            new Column("Blocks", Unit.NUMBER), new Column("Allocated blocks", Unit.NUMBER)), rows);
        } catch (IOException e) {
            return ViewSection.text("memory-segments", "Snapshot segments", "The memory snapshot " + name
                    + " could not be read: " + e.getMessage());
        }
    }

    /** The run's memory timeline by category, or why it cannot be shown. */
    private static ViewSection timeline(Path file, String name, String device) {
        try {
            MemoryTimelineFile t = MemoryTimelineFile.read(file);
            long first = t.points().isEmpty() ? 0 : t.points().get(0)[0];
            return categories(device == null ? "the run's device" : device, t.points(), t.categories(),
                    "The run's memory timeline " + name + " (torch's export_memory_timeline categories, the"
                    + " blocks live before the profile included), stacked, in MiB, from its first point.", first);
        } catch (IOException e) {
            return ViewSection.text("memory-categories", "Memory by category", "The memory timeline " + name
                    + " could not be read: " + e.getMessage());
        }
    }

    /** A device's bytes by category, stacked, in MiB over ms from {@code originNanos}; a category never held left out. */
    private static ViewSection categories(String device, List<long[]> points, List<String> categories, String note,
            long originNanos) {
        List<Object> series = new ArrayList<>();
        for (int k = 0; k < categories.size(); k++) {
            final int column = k + 1;
            if (points.stream().allMatch(p -> p[column] == 0)) {
                continue;
            }
            List<List<Double>> data = new ArrayList<>();
            for (long[] p : points) {
                data.add(List.of(Charts.ms(p[0] - originNanos), Math.round(p[column] / MIB * 1000) / 1000.0));
            }
            series.add(Map.of("name", categories.get(k), "type", "line", "step", "end", "stack", "bytes",
                    "areaStyle", Map.of(), "showSymbol", false, "data", data));
        }
        Map<String, Object> option = overTime(series);
        return ViewSection.chart("memory-categories-" + device.replaceAll("[^A-Za-z0-9-]", "-"), "Memory by category, "
                + device, note, option);
    }
}
