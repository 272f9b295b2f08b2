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
        return !run.summary().memory().isEmpty();
    }

    @Override
    public List<ViewSection> render(BoardRun run) {
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
        Map<String, Object> option = new LinkedHashMap<>();
        option.put("tooltip", Map.of("trigger", "axis"));
        option.put("legend", Map.of("top", 0));
        option.put("grid", Map.of("left", 70, "right", 20, "top", 40, "bottom", 50));
        option.put("xAxis", Map.of("type", "value", "name", "ms", "nameLocation", "middle", "nameGap", 28));
        option.put("yAxis", Map.of("type", "value", "name", "MiB"));
        option.put("dataZoom", List.of(Map.of("type", "inside"), Map.of("type", "slider", "height", 16)));
        option.put("series", series);
        List<List<Object>> rows = new ArrayList<>();
        curves.forEach(c -> rows.add(List.of(c.device(), c.events(), c.peakAllocatedBytes(), c.peakReservedBytes())));
        return List.of(
                ViewSection.chart("memory-chart", "Memory curve", "Allocator totals after each [memory] event, per"
                        + " device, in MiB, from the trace's first point. Scroll or drag the bar to zoom.", option),
                ViewSection.table("memory-peaks", "Peaks", null, List.of(new Column("Device", Unit.TEXT),
                        new Column("Memory events", Unit.NUMBER), new Column("Peak allocated", Unit.BYTES),
                        new Column("Peak reserved", Unit.BYTES)), rows));
    }
}
