package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.AnalysesView;
import dev.vantage.board.internal.views.KernelsView;
import dev.vantage.board.internal.views.OverviewView;
import dev.vantage.board.internal.views.StepsView;
import dev.vantage.board.internal.views.TimelineView;

/**
 * A run's first answer does not wait for each step's critical path: the board answers with what is computed, says
 * what is to come, and has the rest once the later work ran, the same as a run analysed all at once.
 */
public class LaterAnalysesTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** HTA's nanosecond trace in a log directory, and the board's runs of it with the later work held back. */
    private Path root;
    private final Deque<Runnable> later = new ArrayDeque<>();
    private Runs runs;

    /** The trace read, its later work (each step's critical path, the advice) held until the test runs it. */
    private AnalysedRun readHeldBack() throws Exception {
        root = tmp.getRoot().toPath().resolve("logs");
        RunsTest.copy(RunsTest.NS_TRACE, root.resolve("rank-0.pt.trace.json.gz"));
        runs = new Runs(new Logdir(root), 8, () -> 0L, later::add);
        AnalysedRun run = runs.analysed(runs.list().get(0));
        assertTrue(run.analysing());
        return run;
    }

    @Test
    public void theFirstAnswerSaysTheCriticalPathsAndAdviceAreToComeAndTheyCome() throws Exception {
        AnalysedRun run = readHeldBack();
        assertEquals(1, later.size());
        assertNull(run.analysis("critical_path_summary"));
        assertNull(run.analysis("advice"));
        assertNotNull("what a view shows at once is there", run.analysis("gpu"));
        Map<String, ViewSection> overview = sections(new OverviewView().render(run));
        assertTrue(overview.get("advice").note(), overview.get("advice").note().startsWith("Being computed"));
        assertTrue(sections(new AnalysesView().render(run)).get("critical-path-summary").note()
                .startsWith("Being computed"));

        later.poll().run();
        assertFalse(run.analysing());
        AnalysedRun whole = new Runs(new Logdir(root), 8, () -> 0L).analysed(runs.list().get(0));
        assertFalse(whole.analysing());
        assertEquals(whole.analysis("critical_path_summary"), run.analysis("critical_path_summary"));
        assertEquals(whole.analysis("advice"), run.analysis("advice"));
        assertEquals(4, run.analysis("critical_path_summary").rows().size());
        assertEquals("advice", sections(new OverviewView().render(run)).get("advice").title());
    }

    /**
     * While the run is analysed, only the answer of a view that shows a table still to come is pending: the page asks
     * again for the Overview, not for the Timeline, which would read the whole trace again at each ask.
     */
    @Test
    public void onlyAViewThatWaitsForALaterAnalysisIsPending() throws Exception {
        AnalysedRun run = readHeldBack();
        assertEquals(Boolean.TRUE, Answers.render(new OverviewView(), run, Map.of()).get("pending"));
        assertEquals(Boolean.TRUE, Answers.render(new AnalysesView(), run, Map.of()).get("pending"));
        for (dev.vantage.board.api.BoardView v : List.of(new TimelineView(), new StepsView(), new KernelsView())) {
            Map<String, Object> answer = Answers.render(v, run, Map.of());
            assertNull(v.id(), answer.get("pending"));
            assertFalse(v.id(), ((List<?>) answer.get("sections")).isEmpty());
        }
        later.poll().run();
        assertNull(Answers.render(new OverviewView(), run, Map.of()).get("pending"));
    }

    @Test
    public void aBoardThatStopsRefusesToStartANewRead() throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        RunsTest.copy(RunsTest.NS_TRACE, root.resolve("rank-0.pt.trace.json.gz"));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L, r -> {
            throw new java.util.concurrent.RejectedExecutionException("stopped");
        });
        try {
            runs.analysed(runs.list().get(0));
        } catch (java.io.IOException e) {
            assertEquals("the board is stopping", e.getMessage());
            return;
        }
        throw new AssertionError("read while stopping");
    }

    private static Map<String, ViewSection> sections(List<ViewSection> list) {
        return list.stream().collect(Collectors.toMap(ViewSection::id, s -> s));
    }
}
