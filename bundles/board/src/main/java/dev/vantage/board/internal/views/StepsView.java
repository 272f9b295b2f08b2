package dev.vantage.board.internal.views;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.CompareSections;
import dev.vantage.trace.engine.StepSummaries;
import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Two steps of a run compared as {@code compare} compares two runs (the engine's {@link Comparison} of each step's
 * own operators and device work, {@link StepSummaries}): the fastest and the slowest first, any two from the lists.
 */
@Component(service = BoardView.class)
public class StepsView implements BoardView {

    @Override
    public String id() {
        return "steps";
    }

    @Override
    public String title() {
        return "Compare steps";
    }

    @Override
    public int order() {
        return 37;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return run.summary().steps().size() >= 2;
    }

    @Override
    public List<ViewSection> render(BoardRun run) throws IOException {
        return render(run, Map.of());
    }

    @Override
    public List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException {
        List<StepStats> steps = run.summary().steps();
        long a = chosen(steps, parameters.get("a"), steps.stream().min(Comparator.comparingLong(
                StepStats::durationNanos)).orElseThrow());
        long b = chosen(steps, parameters.get("b"), steps.stream().max(Comparator.comparingLong(
                StepStats::durationNanos)).orElseThrow());
        List<List<String>> options = steps.stream().map(s -> List.of(String.valueOf(s.step()), "ProfilerStep#"
                + s.step() + " (" + String.format(Locale.ROOT, "%.3f", s.durationNanos() / 1e6) + " ms)")).toList();
        List<ViewSection> sections = new ArrayList<>();
        sections.add(ViewSection.choice("step-a", "Step A", "The fastest step is A first, the slowest B.",
                new ViewSection.Choice("a", options, String.valueOf(a))));
        sections.add(ViewSection.choice("step-b", "Step B", null, new ViewSection.Choice("b", options,
                String.valueOf(b))));
        List<TraceSummary> two = run.read(trace -> StepSummaries.of(trace, run.summary(), a, b));
        sections.addAll(CompareSections.of(Comparison.of("ProfilerStep#" + a, two.get(0), "ProfilerStep#" + b,
                two.get(1))));
        return sections;
    }

    private static long chosen(List<StepStats> steps, String asked, StepStats otherwise) {
        return steps.stream().filter(s -> String.valueOf(s.step()).equals(asked)).findFirst().orElse(otherwise)
                .step();
    }
}
