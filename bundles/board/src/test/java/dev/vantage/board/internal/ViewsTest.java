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

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.AnalysesView;
import dev.vantage.board.internal.views.DistributedView;
import dev.vantage.board.internal.views.KernelsView;
import dev.vantage.board.internal.views.MemoryView;
import dev.vantage.board.internal.views.OperatorsView;
import dev.vantage.board.internal.views.OverviewView;
import dev.vantage.board.internal.views.TimelineView;
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
        // the plugin's memory statistics and events are the engine's (PluginMemoryTest checks those against the
        // plugin's own parser)
        dev.vantage.trace.engine.MemoryEvents engine;
        try (dev.vantage.trace.engine.AnalysedTrace trace = TraceReader.read(run.file())) {
            engine = dev.vantage.trace.engine.MemoryEvents.of(trace);
        }
        assertFalse(engine.byOperator().isEmpty());
        assertEquals(engine.byOperator(), memory.get("memory-by-operator").rows());
        assertEquals(engine.blocks(), memory.get("memory-blocks").rows());
        assertEquals(dev.vantage.trace.engine.MemoryEvents.OPERATOR_COLUMNS.size(),
                memory.get("memory-by-operator").columns().size());
        assertNotNull("a trace without categories says so", memory.get("memory-categories").note());
    }

    @Test
    public void theTimelineDrawsTheSlowestStepFirstAndAnyStepAskedFor() throws Exception {
        AnalysedRun run = run(RunsTest.NS_TRACE, "rank-0.pt.trace.json.gz");
        TraceSummary engine = TraceReader.summary(run.file());
        StepStats slowest = engine.steps().stream().max(java.util.Comparator.comparingLong(StepStats::durationNanos))
                .orElseThrow();
        StepStats first = engine.steps().get(0);
        TimelineView view = new TimelineView();
        for (StepStats step : List.of(slowest, first)) {
            Map<String, ViewSection> sections = view.render(run, step == slowest ? Map.of()
                    : Map.of("step", String.valueOf(step.step()))).stream()
                    .collect(Collectors.toMap(ViewSection::id, x -> x));
            assertEquals(String.valueOf(step.step()), sections.get("step").choice().selected());
            assertEquals(engine.steps().size(), sections.get("step").choice().options().size());
            ViewSection.Timeline t = sections.get("timeline").timeline();
            assertEquals("ProfilerStep#" + step.step(), sections.get("timeline").title());
            assertTrue(t.lanes().stream().anyMatch(l -> l.contains(" stream ")));
            assertFalse(t.slices().isEmpty());
            for (List<Object> slice : t.slices()) {
                long start = (Long) slice.get(1);
                long end = (Long) slice.get(2);
                assertTrue(slice.toString(), 0 <= start && start <= end && end <= step.durationNanos()
                        + 1_000_000_000L);
            }
            // the step's own span is on a lane of its thread, from the window's start
            assertTrue(t.slices().stream().anyMatch(x -> x.get(3).equals("ProfilerStep#" + step.step())
                    && (Long) x.get(1) == 0L));
            // every kernel of the step's window is drawn
            long kernels = run.read(trace -> {
                var d = trace.data().device();
                var span = trace.data().steps().stream().filter(x -> x.number() == step.step()).findFirst()
                        .orElseThrow();
                long to = Math.max(span.endNanos(), span.startNanos() + step.durationNanos());
                long n = 0;
                for (int i = 0; i < d.size(); i++) {
                    if (d.kind(i).isDeviceWork() && d.end(i) > span.startNanos() && d.start(i) < to) {
                        n++;
                    }
                }
                return n;
            });
            assertEquals(kernels, t.slices().stream().filter(x -> x.get(4).equals("kernel")
                    || x.get(4).equals("gpu_memcpy") || x.get(4).equals("gpu_memset")).count());
        }
    }

    @Test
    public void theDistributedViewShowsEveryRankOfTheJobBesideIt() throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        String dir = "/dev/vantage/trace/engine/device/hta/trace_filter/";
        RunsTest.copy(dir + "sampled_rank-0.json.gz", root.resolve("job/rank-0.json.gz"));
        RunsTest.copy(dir + "sampled_rank-1.json.gz", root.resolve("job/rank-1.json.gz"));
        RunsTest.copy(RunsTest.NS_TRACE, root.resolve("other/rank-0.pt.trace.json.gz"));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        // HTA's traces are named *.json.gz: listed because they are traces
        assertEquals(3, runs.list().size());
        Logdir.Found first = runs.list().stream().filter(f -> f.name().equals("job/rank-0.json.gz")).findFirst()
                .orElseThrow();
        AnalysedRun run = runs.analysed(first);
        DistributedView view = new DistributedView();
        assertTrue(view.appliesTo(run));
        List<TraceSummary> engine = List.of(TraceReader.summary(root.resolve("job/rank-0.json.gz")),
                TraceReader.summary(root.resolve("job/rank-1.json.gz")));
        Map<String, ViewSection> sections = view.render(run).stream().collect(Collectors.toMap(ViewSection::id,
                x -> x));
        List<List<Object>> ranks = sections.get("ranks").rows();
        assertEquals(2, ranks.size());
        for (int i = 0; i < 2; i++) {
            TraceSummary t = engine.get(i);
            assertEquals(t.rank(), ranks.get(i).get(0));
            double mean = t.steps().stream().mapToLong(StepStats::durationNanos).sum() / (double) t.steps().size();
            assertEquals(Math.round(mean), ranks.get(i).get(3));
            assertEquals(t.overlap().exposedCommunicationNanos(), ranks.get(i).get(8));
        }
        assertFalse(view.appliesTo(runs.analysed(runs.list().stream().filter(f -> f.name().startsWith("other"))
                .findFirst().orElseThrow())));
    }

    @Test
    public void theMergedTimelineDrawsOneStepOfEveryRankWithTheirCollectivesEndingTogether() throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        String dir = "/dev/vantage/trace/engine/device/hta/trace_filter/";
        RunsTest.copy(dir + "sampled_rank-0.json.gz", root.resolve("job/rank-0.json.gz"));
        RunsTest.copy(dir + "sampled_rank-1.json.gz", root.resolve("job/rank-1.json.gz"));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        AnalysedRun run = runs.analysed(runs.list().stream().filter(f -> f.name().equals("job/rank-0.json.gz"))
                .findFirst().orElseThrow());
        TraceSummary rank0 = run.summary();
        StepStats first = rank0.steps().get(0);
        Map<String, ViewSection> sections = new DistributedView().render(run, Map.of("step",
                String.valueOf(first.step()))).stream().collect(Collectors.toMap(ViewSection::id, x -> x));
        assertEquals(String.valueOf(first.step()), sections.get("merged-step").choice().selected());
        ViewSection.Timeline t = sections.get("merged-timeline").timeline();
        // both ranks' step spans of the chosen step, each on its rank's lane
        for (int r = 0; r < 2; r++) {
            int lane = t.lanes().indexOf("rank " + r + " · steps");
            assertTrue(t.lanes().toString(), lane >= 0);
            assertTrue(t.slices().stream().anyMatch(x -> x.get(0).equals(lane)
                    && x.get(3).equals("ProfilerStep#" + first.step())));
        }
        List<List<Object>> shifts = sections.get("clock-shifts").rows();
        assertEquals(2, shifts.size());
        assertEquals(0L, shifts.get(0).get(1));
        long shift = (Long) shifts.get(1).get(1);
        assertTrue("rank 1 has collectives matched to rank 0's", (Long) shifts.get(1).get(2) >= 2);
        // the two step spans lie as far apart as their epoch times say, once rank 1's are shifted
        long[] starts = new long[2];
        for (int r = 0; r < 2; r++) {
            try (var trace = TraceReader.read(root.resolve("job/rank-" + r + ".json.gz"))) {
                for (var span : trace.data().steps()) {
                    if (span.number() == first.step() && span.threadId() != -1) {
                        starts[r] = span.startNanos() + trace.data().epochOffsetNanos();
                    }
                }
            }
        }
        long drawn0 = stepStart(t, 0, first.step());
        long drawn1 = stepStart(t, 1, first.step());
        assertEquals(starts[1] + shift - starts[0], drawn1 - drawn0);
        assertEquals(0, Math.min(drawn0, drawn1));
        // and a collective of the two ranks ends together on the merged clock
        List<List<Object>> nccl0 = ncclSlices(t, "rank 0 · ");
        assertTrue(ncclSlices(t, "rank 1 · ").stream().anyMatch(k -> nccl0.stream().anyMatch(
                o -> o.get(3).equals(k.get(3)) && Math.abs((Long) o.get(2) - (Long) k.get(2)) <= 20_000)));
    }

    @Test
    public void everyRankOfAJobShowsOneMergedTimelineReadOnce() throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        String dir = "/dev/vantage/trace/engine/device/hta/trace_filter/";
        RunsTest.copy(dir + "sampled_rank-0.json.gz", root.resolve("job/rank-0.json.gz"));
        RunsTest.copy(dir + "sampled_rank-1.json.gz", root.resolve("job/rank-1.json.gz"));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        DistributedView view = new DistributedView();
        int[] reads = {0};
        List<ViewSection.Timeline> shown = new java.util.ArrayList<>();
        for (Logdir.Found f : runs.list()) {
            AnalysedRun run = runs.analysed(f);
            BoardRun counted = new BoardRun() {
                public String id() {
                    return run.id();
                }

                public String name() {
                    return run.name();
                }

                public Path file() {
                    return run.file();
                }

                public Map<String, String> tags() {
                    return run.tags();
                }

                public TraceSummary summary() {
                    return run.summary();
                }

                public List<Table> analyses() {
                    return run.analyses();
                }

                public List<TraceSummary> job() throws java.io.IOException {
                    return run.job();
                }

                public <T> List<T> readJob(java.util.function.Function<dev.vantage.trace.engine.AnalysedTrace, T> f)
                        throws java.io.IOException {
                    reads[0]++;
                    return run.readJob(f);
                }

                public <T> T read(java.util.function.Function<dev.vantage.trace.engine.AnalysedTrace, T> f)
                        throws java.io.IOException {
                    return run.read(f);
                }
            };
            shown.add(view.render(counted).stream().filter(x -> x.id().equals("merged-timeline")).findFirst()
                    .orElseThrow().timeline());
        }
        assertEquals(2, shown.size());
        assertEquals("both ranks show the job's one timeline", shown.get(0), shown.get(1));
        assertEquals("the job's traces were read once", 1, reads[0]);
    }

    private static long stepStart(ViewSection.Timeline t, int rank, long step) {
        int lane = t.lanes().indexOf("rank " + rank + " · steps");
        return t.slices().stream().filter(x -> x.get(0).equals(lane) && x.get(3).equals("ProfilerStep#" + step))
                .mapToLong(x -> (Long) x.get(1)).findFirst().orElseThrow();
    }

    private static List<List<Object>> ncclSlices(ViewSection.Timeline t, String rank) {
        return t.slices().stream().filter(x -> t.lanes().get((Integer) x.get(0)).startsWith(rank)
                && t.lanes().get((Integer) x.get(0)).contains("stream") && ((String) x.get(3)).startsWith("nccl"))
                .toList();
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
