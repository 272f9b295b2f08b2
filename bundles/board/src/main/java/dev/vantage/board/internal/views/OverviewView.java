package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The TensorBoard plugin's Overview: the run's facts, the GPU summary, the advice, and each step's time split into the
 * plugin's categories (kernel, memcpy, memset, communication, runtime, CPU op, other), as a chart and a table.
 */
@Component(service = BoardView.class)
public class OverviewView implements BoardView {

    /** The step categories in the order each instant is counted, with the plugin's names. */
    static final Map<String, ToLongFunction<StepStats>> CATEGORIES = categories();

    private static Map<String, ToLongFunction<StepStats>> categories() {
        Map<String, ToLongFunction<StepStats>> c = new LinkedHashMap<>();
        c.put("Kernel", StepStats::kernelNanos);
        c.put("Memcpy", StepStats::memcpyNanos);
        c.put("Memset", StepStats::memsetNanos);
        c.put("Communication", StepStats::communicationNanos);
        c.put("Runtime", StepStats::runtimeNanos);
        c.put("CPU Exec", StepStats::cpuOpNanos);
        c.put("Other", StepStats::otherNanos);
        return c;
    }

    @Override
    public String id() {
        return "overview";
    }

    @Override
    public String title() {
        return "Overview";
    }

    @Override
    public int order() {
        return 10;
    }

    @Override
    public List<ViewSection> render(BoardRun run) {
        TraceSummary s = run.summary();
        List<ViewSection> sections = new ArrayList<>();
        sections.add(ViewSection.table("run", "Run", null, List.of(new Column("Property", Unit.TEXT),
                new Column("Value", Unit.TEXT)), facts(run, s)));
        BoardRun.Table gpu = run.analysis("gpu");
        if (gpu != null && !gpu.rows().isEmpty()) {
            sections.add(ViewSection.of(gpu, "The TensorBoard plugin's GPU summary: utilization, estimated SM"
                    + " efficiency and achieved occupancy, and the share of kernel time in Tensor Core kernels."));
        }
        BoardRun.Table advice = run.analysis("advice");
        if (advice != null && !advice.rows().isEmpty()) {
            sections.add(ViewSection.of(advice, "The TensorBoard plugin's performance recommendations and Vantage's"
                    + " own, with the figures each rule fired on."));
        } else if (advice == null) {
            Charts.later(run, "advice", "Advice").ifPresent(sections::add);
        }
        List<StepStats> steps = s.steps();
        if (steps.isEmpty()) {
            sections.add(ViewSection.text("steps", "Step time breakdown", "This trace has no ProfilerStep#N spans."));
            return sections;
        }
        List<String> labels = steps.stream().map(x -> "Step " + x.step()).toList();
        Map<String, List<? extends Number>> series = new LinkedHashMap<>();
        CATEGORIES.forEach((name, f) -> series.put(name, steps.stream().map(x -> Charts.ms(f.applyAsLong(x)))
                .toList()));
        sections.add(ViewSection.chart("step-chart", "Step time breakdown", "Each instant of a step counts once,"
                + " in the first busy category in the order shown; device work belongs to the step its operator"
                + " started in. Milliseconds.", Charts.stackedBars(labels, series, "ms")));
        List<Column> columns = new ArrayList<>(List.of(new Column("Step", Unit.NUMBER),
                new Column("Step time", Unit.NANOS)));
        CATEGORIES.keySet().forEach(name -> columns.add(new Column(name, Unit.NANOS)));
        List<List<Object>> rows = new ArrayList<>();
        for (StepStats x : steps) {
            List<Object> row = new ArrayList<>(List.of(x.step(), x.durationNanos()));
            CATEGORIES.values().forEach(f -> row.add(f.applyAsLong(x)));
            rows.add(row);
        }
        sections.add(ViewSection.table("steps", "Steps", "Times in µs.", columns, rows));
        return sections;
    }

    private static List<List<Object>> facts(BoardRun run, TraceSummary s) {
        List<List<Object>> rows = new ArrayList<>();
        rows.add(List.of("Name", run.name()));
        rows.add(List.of("File", run.file().getFileName().toString()));
        rows.add(List.of("Format", s.format()));
        if (s.rank() >= 0) {
            rows.add(List.of("Rank", s.rank() + " of " + s.worldSize()));
        }
        rows.add(List.of("Events", String.valueOf(s.events())));
        rows.add(List.of("Steps", String.valueOf(s.steps().size())));
        run.tags().forEach((k, v) -> rows.add(List.of(k, v)));
        return rows;
    }
}
