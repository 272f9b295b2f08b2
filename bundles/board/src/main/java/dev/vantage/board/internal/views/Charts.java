package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.board.api.ViewSection;
import dev.vantage.trace.engine.summary.StepStats;

/**
 * What the built-in views share: ECharts options (a stacked bar chart and a pie, each with a tooltip), and the
 * section of an analysis still to come.
 */
final class Charts {

    private Charts() {
    }

    /**
     * A stacked bar chart of categories.
     *
     * @param labels the bars' labels
     * @param series each series' name and its values, one per bar
     * @param unit the value axis's name
     */
    static Map<String, Object> stackedBars(List<String> labels, Map<String, List<? extends Number>> series,
            String unit) {
        List<Object> bars = new ArrayList<>();
        series.forEach((name, values) -> bars.add(Map.of("name", name, "type", "bar", "stack", "all",
                "data", values)));
        Map<String, Object> option = new LinkedHashMap<>();
        option.put("tooltip", Map.of("trigger", "axis", "axisPointer", Map.of("type", "shadow")));
        option.put("legend", Map.of("top", 0));
        option.put("grid", Map.of("left", 70, "right", 20, "top", 40, "bottom", 30));
        option.put("xAxis", Map.of("type", "category", "data", labels));
        option.put("yAxis", Map.of("type", "value", "name", unit));
        option.put("series", bars);
        return option;
    }

    /** A pie of named values; the tooltip shows each slice's value and share. */
    static Map<String, Object> pie(String name, Map<String, ? extends Number> slices) {
        List<Object> data = new ArrayList<>();
        slices.forEach((k, v) -> data.add(Map.of("name", k, "value", v)));
        Map<String, Object> option = new LinkedHashMap<>();
        option.put("tooltip", Map.of("trigger", "item", "formatter", "{b}: {c} ({d}%)"));
        option.put("legend", Map.of("type", "scroll", "orient", "vertical", "right", 0, "top", 20, "bottom", 20));
        option.put("series", List.of(Map.of("name", name, "type", "pie", "radius", "60%",
                "center", List.of("35%", "50%"), "data", data)));
        return option;
    }

    /** Nanoseconds as milliseconds, three decimals: what a chart's axis shows. */
    static double ms(long nanos) {
        return Math.round(nanos / 1000.0) / 1000.0;
    }

    /**
     * In place of a table the run is still computing (each step's critical path, the advice that needs them), a
     * section that says so, or why it is missing; empty when the run has nothing of the kind to come.
     */
    static java.util.Optional<ViewSection> later(dev.vantage.board.api.BoardRun run, String id, String title) {
        if (run.analysing()) {
            return java.util.Optional.of(ViewSection.text(id, title, "Being computed (each step's critical path):"
                    + " it shows here when it is done."));
        }
        String problem = run.analysisProblem();
        return problem == null ? java.util.Optional.empty()
                : java.util.Optional.of(ViewSection.text(id, title, "Not available: " + problem + "."));
    }

    /** The step a choice names ({@code ProfilerStep#N} by its number), else {@code otherwise}; null when none. */
    static StepStats step(List<StepStats> steps, String asked, java.util.Comparator<StepStats> otherwise) {
        StepStats fallback = steps.stream().max(otherwise).orElse(null);
        return asked == null ? fallback : steps.stream().filter(s -> String.valueOf(s.step()).equals(asked))
                .findFirst().orElse(fallback);
    }

    /** The slowest step, the default of a view that shows one step. */
    static final java.util.Comparator<StepStats> SLOWEST = java.util.Comparator.comparingLong(
            StepStats::durationNanos);

    /** A choice of the run's steps, each labelled with its time. */
    static ViewSection.Choice steps(String parameter, List<StepStats> steps, StepStats selected) {
        return new ViewSection.Choice(parameter, steps.stream().map(s -> List.of(String.valueOf(s.step()),
                "ProfilerStep#" + s.step() + " (" + String.format(java.util.Locale.ROOT, "%.3f", s.durationNanos()
                        / 1e6) + " ms)")).toList(), String.valueOf(selected.step()));
    }
}
