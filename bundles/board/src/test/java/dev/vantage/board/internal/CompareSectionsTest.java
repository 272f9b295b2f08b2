package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.Test;

import dev.vantage.board.api.ViewSection;
import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.KernelStats;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

public class CompareSectionsTest {

    private static TraceSummary summary(long mmSelf, long... steps) {
        List<StepStats> s = new java.util.ArrayList<>();
        for (int i = 0; i < steps.length; i++) {
            s.add(new StepStats(i + 1, 0, steps[i], 0, 0, 0, 0, 0, 0, steps[i]));
        }
        return new TraceSummary("t", -1, 1, 10, List.of(new OpStats("aten::mm", "cpu_op", null, 2, mmSelf, mmSelf,
                0, 0, mmSelf / 2, mmSelf / 2)), List.of(), List.of(new KernelStats("k", "kernel", null, 1, 5, 5, 5, 5,
                5)), List.of(), s, List.of());
    }

    @Test
    public void stepsPairByPositionAndOperatorsShowTheirChange() {
        Map<String, ViewSection> sections = CompareSections.of(Comparison.of("a", summary(1_000, 100, 200),
                "b", summary(1_500, 300, 200, 50))).stream().collect(Collectors.toMap(ViewSection::id, x -> x));
        ViewSection steps = sections.get("compare-steps");
        // three positions and the mean of the two paired
        assertEquals(4, steps.rows().size());
        assertEquals(java.util.Arrays.asList("1", "ProfilerStep#1 / ProfilerStep#1", "both", 100L, 300L, 200L, 2.0),
                steps.rows().get(0));
        assertEquals(java.util.Arrays.asList("3", "- / ProfilerStep#3", "new", null, 50L, null, null),
                steps.rows().get(2));
        List<Object> mean = steps.rows().get(3);
        assertEquals(java.util.Arrays.asList("mean", "over 2 paired steps", "both", 150L, 250L, 100L),
                mean.subList(0, 6));
        assertEquals(100.0 / 150, (Double) mean.get(6), 1e-12);
        List<Object> mm = sections.get("compare-operators").rows().get(0);
        assertEquals(java.util.Arrays.asList("aten::mm", "", "both", 1_000L, 1_500L, 500L, 0.5), mm);
        assertEquals(0L, sections.get("compare-kernels").rows().get(0).get(5));
    }
}
