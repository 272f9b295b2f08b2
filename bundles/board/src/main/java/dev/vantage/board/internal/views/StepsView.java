package dev.vantage.board.internal.views;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
public class StepsView extends ChoiceView {

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
    public List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException {
        List<StepStats> steps = run.summary().steps();
        StepStats a = Charts.step(steps, parameters.get("a"), Charts.SLOWEST.reversed());
        StepStats b = Charts.step(steps, parameters.get("b"), Charts.SLOWEST);
        List<ViewSection> sections = new ArrayList<>();
        sections.add(ViewSection.choice("step-a", "Step A", "The fastest step is A first, the slowest B.",
                Charts.steps("a", steps, a)));
        sections.add(ViewSection.choice("step-b", "Step B", null, Charts.steps("b", steps, b)));
        List<TraceSummary> two = run.read(trace -> StepSummaries.of(trace, run.summary(), a.step(), b.step()));
        sections.addAll(CompareSections.of(Comparison.of("ProfilerStep#" + a.step(), two.get(0), "ProfilerStep#"
                + b.step(), two.get(1))));
        return sections;
    }
}
