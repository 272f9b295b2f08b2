package dev.vantage.board.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.Delta;

/**
 * Two runs compared, as {@code vantage compare} compares them (the engine's {@link Comparison}): steps paired by
 * position with their mean, operators by the change of their self time, kernels by the change of their total time,
 * and each device's peak memory; new and vanished rows flagged.
 */
public final class CompareSections {

    private CompareSections() {
    }

    /** The sections of a comparison. */
    public static List<ViewSection> of(Comparison c) {
        List<ViewSection> sections = new ArrayList<>();
        List<Delta> paired = c.steps().stream().filter(d -> !d.name().equals("mean")).toList();
        if (!paired.isEmpty()) {
            Map<String, Object> chart = new LinkedHashMap<>();
            chart.put("tooltip", Map.of("trigger", "axis", "axisPointer", Map.of("type", "shadow")));
            chart.put("legend", Map.of("top", 0));
            chart.put("grid", Map.of("left", 70, "right", 20, "top", 40, "bottom", 30));
            chart.put("xAxis", Map.of("type", "category", "data", paired.stream().map(Delta::name).toList()));
            chart.put("yAxis", Map.of("type", "value", "name", "ms"));
            chart.put("series", List.of(series("A: " + c.a().label(), paired, true),
                    series("B: " + c.b().label(), paired, false)));
            sections.add(ViewSection.chart("compare-steps-chart", "Step time, A and B", "Steps paired by position"
                    + " (the first recorded step of A with the first of B), in milliseconds.", chart));
        }
        sections.add(table("compare-steps", "Steps", "Step time by paired step, and their mean. Times in µs.",
                c.steps(), "durationNanos", Unit.NANOS));
        sections.add(table("compare-operators", "Operators", "Host rows of the key averages by the change of their"
                + " self time, largest first. Times in µs.", c.ops(), "selfNanos", Unit.NANOS));
        sections.add(table("compare-kernels", "Kernels", "Device work by the change of its total time, largest"
                + " first. Times in µs.", c.kernels(), "totalNanos", Unit.NANOS));
        if (!c.memory().isEmpty()) {
            sections.add(table("compare-memory", "Peak memory", "Each device's peak allocated bytes.", c.memory(),
                    "peakAllocatedBytes", Unit.BYTES));
        }
        return sections;
    }

    private static Map<String, Object> series(String name, List<Delta> steps, boolean a) {
        List<Object> data = new ArrayList<>();
        for (Delta d : steps) {
            Delta.Value v = d.metrics().get("durationNanos");
            Long nanos = a ? v.a() : v.b();
            data.add(nanos == null ? null : Math.round(nanos / 1000.0) / 1000.0);
        }
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("name", name);
        s.put("type", "bar");
        s.put("data", data);
        return s;
    }

    private static ViewSection table(String id, String title, String note, List<Delta> deltas, String metric,
            Unit unit) {
        List<List<Object>> rows = new ArrayList<>();
        for (Delta d : deltas) {
            Delta.Value v = d.metrics().get(metric);
            List<Object> row = new ArrayList<>();
            row.add(d.name());
            row.add(d.detail());
            row.add(d.status());
            row.add(v.a());
            row.add(v.b());
            row.add(v.delta());
            row.add(v.deltaPercent() == null ? null : v.deltaPercent() / 100.0);
            rows.add(row);
        }
        return ViewSection.table(id, title, note, List.of(new Column("Name", Unit.TEXT),
                new Column("Detail", Unit.TEXT), new Column("Status", Unit.TEXT), new Column("A", unit),
                new Column("B", unit), new Column("Change", unit), new Column("Change %", Unit.FRACTION)), rows);
    }
}
