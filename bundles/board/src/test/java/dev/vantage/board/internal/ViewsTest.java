package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.AnalysesView;
import dev.vantage.board.internal.views.KernelsView;
import dev.vantage.board.internal.views.MemoryView;
import dev.vantage.board.internal.views.OperatorsView;
import dev.vantage.board.internal.views.OverviewView;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.MemoryCurve;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The built-in views of real PyTorch traces: their numbers are the trace engine's (read here apart from the board),
 * and the device analyses are HTA's own figures for HTA's nanosecond trace.
 */
public class ViewsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Map<String, ViewSection> sections(BoardView view, AnalysedRun run) throws Exception {
        return view.render(run).stream().collect(Collectors.toMap(ViewSection::id, s -> s));
    }

    private AnalysedRun run(String resource, String name) throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        RunsTest.copy(resource, root.resolve(name));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        Logdir.Found f = runs.list().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        return runs.analysed(f);
    }

    @Test
    public void overviewAndOperatorsShowTheEnginesStepsAndOperators() throws Exception {
        AnalysedRun run = run(RunsTest.NS_TRACE, "rank-0.pt.trace.json.gz");
        TraceSummary engine = TraceReader.summary(run.file());
        Map<String, ViewSection> overview = sections(new OverviewView(), run);
        ViewSection steps = overview.get("steps");
        assertEquals(engine.steps().size(), steps.rows().size());
        assertFalse(engine.steps().isEmpty());
        for (int i = 0; i < engine.steps().size(); i++) {
            StepStats s = engine.steps().get(i);
            List<Object> row = steps.rows().get(i);
            assertEquals(List.of(s.step(), s.durationNanos(), s.kernelNanos(), s.memcpyNanos(), s.memsetNanos(),
                    s.communicationNanos(), s.runtimeNanos(), s.cpuOpNanos(), s.otherNanos()), row);
        }
        assertNotNull(overview.get("step-chart").chart());
        Map<String, ViewSection> ops = sections(new OperatorsView(), run);
        List<OpStats> operators = engine.ops().stream().filter(OpStats::isOperator).toList();
        assertEquals(operators.size(), ops.get("operators").rows().size());
        long self = operators.stream().mapToLong(OpStats::selfNanos).sum();
        assertEquals(self, ops.get("operators").rows().stream().mapToLong(r -> (Long) r.get(2)).sum());
        OpStats top = operators.stream().max(java.util.Comparator.comparingLong(OpStats::selfNanos)).orElseThrow();
        assertEquals(List.of(top.name(), top.count(), top.selfNanos(), top.totalNanos(), top.meanNanos(),
                top.p99Nanos(), top.deviceSelfNanos(), top.deviceTotalNanos()), ops.get("operators").rows().get(0));
        assertTrue(new KernelsView().appliesTo(run));
        assertEquals(engine.kernels().size(), sections(new KernelsView(), run).get("kernels").rows().size());
    }

    @Test
    public void theDeviceAnalysesAreHtasFiguresForItsNanosecondTrace() throws Exception {
        AnalysedRun run = run(RunsTest.NS_TRACE, "rank-0.pt.trace.json.gz");
        JsonNode hta;
        try (InputStream in = ViewsTest.class.getResourceAsStream(
                "/dev/vantage/trace/engine/device/hta/ns_resolution.hta.json")) {
            hta = new ObjectMapper().readTree(in);
        }
        ViewSection idle = sections(new AnalysesView(), run).get("idle");
        int category = idle.columns().stream().map(ViewSection.Column::name).toList().indexOf("idle_category");
        int time = idle.columns().stream().map(ViewSection.Column::name).toList().indexOf("idle_time");
        int checked = 0;
        for (JsonNode expected : hta.path("idle").path("0")) {
            for (List<Object> row : idle.rows()) {
                if (row.get(category).equals(expected.path("idle_category").asText())) {
                    assertEquals(expected.path("idle_category").asText(), expected.path("idle_time").asDouble(),
                            ((Number) row.get(time)).doubleValue(), 1e-9);
                    checked++;
                }
            }
        }
        assertEquals(3, checked);
    }

    @Test
    public void memoryShowsEachDevicesCurveAndPeaks() throws Exception {
        AnalysedRun run = run(RunsTest.ADVICE_TRACE, "advice.pt.trace.json");
        List<MemoryCurve> curves = TraceReader.summary(run.file()).memory();
        assertTrue(new MemoryView().appliesTo(run));
        Map<String, ViewSection> memory = sections(new MemoryView(), run);
        assertEquals(curves.size(), memory.get("memory-peaks").rows().size());
        assertEquals(curves.get(0).peakAllocatedBytes(), memory.get("memory-peaks").rows().get(0).get(2));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> series = (List<Map<String, Object>>) memory.get("memory-chart").chart()
                .get("series");
        assertEquals(2 * curves.size(), series.size());
        assertEquals(curves.get(0).points().size(), ((List<?>) series.get(0).get("data")).size());
    }

    @Test
    public void aSectionKeepsAtMostItsRowsAndSaysHowManyThereAre() {
        List<List<Object>> rows = new java.util.ArrayList<>();
        for (int i = 0; i < ViewSection.MAX_ROWS + 5; i++) {
            rows.add(List.of(i));
        }
        ViewSection s = ViewSection.table("t", "T", null, List.of(new ViewSection.Column("n",
                ViewSection.Unit.NUMBER)), rows);
        assertEquals(ViewSection.MAX_ROWS, s.rows().size());
        assertEquals(ViewSection.MAX_ROWS + 5, s.totalRows());
    }
}
