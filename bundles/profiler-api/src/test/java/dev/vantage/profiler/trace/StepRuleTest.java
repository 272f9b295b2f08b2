package dev.vantage.profiler.trace;

import static org.junit.Assert.assertEquals;

import java.util.List;

import org.junit.Test;

public class StepRuleTest {

    // three touching steps: #3 [100, 200), #4 [200, 300), #5 [350, 400)
    private static StepRule rule() {
        return StepRule.of(List.of(new TraceStep(5, 350, 400, 350), new TraceStep(3, 100, 200, 100),
                new TraceStep(4, 200, 300, 200)));
    }

    @Test
    public void aHostEventBelongsToTheSpanHoldingItsStart() {
        StepRule r = rule();
        assertEquals(-1, r.indexOf(99, -1));
        assertEquals(3, r.number(r.indexOf(100, -1)));
        assertEquals(3, r.number(r.indexOf(199, -1)));
        assertEquals("the later of two touching spans holds the instant", 4, r.number(r.indexOf(200, -1)));
        assertEquals("a gap belongs to no step", -1, r.indexOf(320, -1));
        assertEquals(-1, r.indexOf(400, -1));
    }

    @Test
    public void deviceWorkBelongsToTheStepOfItsLaunchAndExtendsItsTime() {
        StepRule r = rule();
        // launched in step 3 at 150, it runs from 210 to 260: step 3's, though it starts in step 4's span
        assertEquals(3, r.number(r.attribute(210, 150, 260)));
        // no known launch: the span holding its start
        assertEquals(4, r.number(r.attribute(250, -1, 280)));
        assertEquals(-1, r.attribute(330, -1, 340));
        List<TraceStep> steps = r.steps();
        assertEquals(List.of(3L, 4L, 5L), steps.stream().map(TraceStep::number).toList());
        assertEquals(160, steps.get(0).durationNanos());
        assertEquals(100, steps.get(1).durationNanos());
        assertEquals(50, steps.get(2).durationNanos());
    }

    @Test
    public void stepNumbersAreReadOnlyFromWholeNumbers() {
        assertEquals(12, StepRule.stepNumber("ProfilerStep#12"));
        assertEquals(-1, StepRule.stepNumber("ProfilerStep#"));
        assertEquals(-1, StepRule.stepNumber("ProfilerStep#1a"));
        assertEquals(-1, StepRule.stepNumber("ProfilerStep#-1"));
        assertEquals(-1, StepRule.stepNumber("ProfilerStep#1234567890123456789"));
        assertEquals(-1, StepRule.stepNumber("Optimizer.step#SGD.step"));
    }
}
