package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.analysis.sql.DuckDbEngine;
import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.TraceFolders;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;
import dev.vantage.exporter.chrome.internal.ChromeTraceExporter;
import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.exporter.contract.GeneratedTrace;
import dev.vantage.exporter.perfetto.internal.PerfettoTraceExporter;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * The same runs exported by the {@code chrome} and the {@code perfetto} exporter (their own code), then read by every
 * analysis verb from each file: {@code report}'s figures (operators with their device times, kernels by launching
 * operator, steps, memory, collectives, overlap), {@code compare}'s and, after {@code convert}, every
 * {@code analyze} query's rows are the same from the {@code .pftrace} as from the Chrome JSON.
 */
public class PerfettoTracesTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Path chromeJob;
    private static Path perfettoJob;

    /** One rank of a training job on an NPU: two steps, a launch with its flow, a collective, memory, GC. */
    static FakeTrace rank(int rank, long slower) {
        return new FakeTrace(List.of(
                Ev.host("ProfilerStep#1", EventKind.USER_ANNOTATION, 1, 0, 50_000 + slower, 1),
                Ev.host("ProfilerStep#2", EventKind.USER_ANNOTATION, 1, 50_000 + slower, 40_000, 2),
                Ev.host("aten::linear", EventKind.CPU_OP, 1, 1_000, 20_000, 3).under(1, 5_000)
                        .withShapes(new long[][] {{8, 16}, {16, 4}, {}}, new String[] {"float", "float", "Scalar"})
                        .withSequence(7, -1),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 2_000, 15_000, 4).under(3, 12_000)
                        .withStack(List.of("a.B.c(B.java:1)", "a.B.d(B.java:2)")),
                Ev.host("npuLaunchKernel", EventKind.RUNTIME, 1, 3_000, 2_000, 5).withFlow(900),
                Ev.memory(1, 4_000, 6, 4096, 0x40, 4),
                Ev.host("aten::relu", EventKind.CPU_OP, 1, 51_000 + slower, 4_000, 7).under(2, 4_000),
                Ev.host("autograd::engine::evaluate_function: MmBackward0", EventKind.CPU_OP, 2, 60_000 + slower,
                        9_000, 8).withSequence(7, 1),
                Ev.host("MmBackward0", EventKind.CPU_OP, 2, 61_000 + slower, 7_000, 9).under(8, 7_000)
                        .withSequence(7, 1),
                Ev.memory(2, 62_000 + slower, 10, -4096, 0x40, 9),
                // written after a later one of another thread: the curve is in time order from both files
                Ev.memory(1, 20_000, 15, 2048, 0x80, 3),
                Ev.host("GC: G1 Young Generation", EventKind.GC, -1, 70_000 + slower, 1_000, 11),
                Ev.kernel("mm_kernel", "npu", 0, 3, 6_000, 10_000, 12, 4).withFlow(900),
                Ev.kernel("relu_kernel", "npu", 0, 3, 52_000 + slower, 1_000, 13, 7),
                Ev.kernel("hcom_allReduce_", "npu", 0, 4, 53_000 + slower, 3_000, 14, 7)),
                List.of(new TraceThread(1, "main", 0), new TraceThread(2, "autograd \"engine\"", 0)),
                List.of(new TraceDevice("npu", 0, true, Map.of("name", "Test NPU", "memory", "1024"))),
                Map.of("profile_memory", "1", "rank", Integer.toString(rank), "world_size", "2",
                        "distributed_backend", "hccl"));
    }

    private static void exportBoth(Trace trace, String name) throws IOException {
        new ChromeTraceExporter().export(trace, chromeJob.resolve(name + ".trace.json.gz"));
        new PerfettoTraceExporter().export(trace, perfettoJob.resolve(name + ".pftrace"));
    }

    @BeforeClass
    public static void exportTheRunsBothWays() throws Exception {
        chromeJob = tmp.newFolder("chrome", "job").toPath();
        perfettoJob = tmp.newFolder("perfetto", "job").toPath();
        exportBoth(rank(0, 0), "rank-0");
        exportBoth(rank(1, 9_000), "rank-1");
        Path generatedChrome = tmp.newFolder("generated-chrome").toPath();
        Path generatedPerfetto = tmp.newFolder("generated-perfetto").toPath();
        GeneratedTrace generated = new GeneratedTrace(40_000);
        new ChromeTraceExporter().export(generated, generatedChrome.resolve("gen.trace.json.gz"));
        new PerfettoTraceExporter().export(generated, generatedPerfetto.resolve("gen.pftrace.gz"));
    }

    /** The summary without what only says which file it came from: its name, and its events by category. */
    private static TraceSummary figures(TraceSummary s) {
        return new TraceSummary("", s.rank(), s.worldSize(), s.events(), s.ops(), s.opsByShape(), s.kernels(),
                s.kernelsByOp(), s.steps(), s.memory(), "", Map.of(), s.unknownEvents(), s.kernelLaunches(),
                s.collectives(), s.overlap());
    }

    @Test
    public void reportReadsTheSameFiguresFromAPftraceAsFromItsChromeExport() throws Exception {
        for (String rank : List.of("rank-0", "rank-1")) {
            TraceSummary chrome = TraceReader.summary(chromeJob.resolve(rank + ".trace.json.gz"));
            TraceSummary perfetto = TraceReader.summary(perfettoJob.resolve(rank + ".pftrace"));
            assertEquals("perfetto", perfetto.format());
            assertEquals(figures(chrome), figures(perfetto));
            // what the views need is there, not only equal: device time through the launch, steps, memory, ranks
            assertEquals(Integer.parseInt(rank.substring(5)), perfetto.rank());
            assertEquals(2, perfetto.worldSize());
            assertEquals(2, perfetto.steps().size());
            assertEquals(3, perfetto.memory().get(0).events());
            List<Long> times = perfetto.memory().get(0).points().stream().map(p -> p.epochNanos()).toList();
            assertEquals(times.stream().sorted().toList(), times);
            assertTrue("the totals come from the memory counters", perfetto.memory().get(0).peakAllocatedBytes() > 0);
            assertEquals(10_000, perfetto.ops().stream().filter(o -> o.name().equals("aten::mm")).findFirst()
                    .orElseThrow().deviceSelfNanos());
            assertEquals(1, perfetto.collectives().size());
            assertTrue(perfetto.overlap().communicationNanos() > 0);
        }
        Path generatedChrome = tmp.getRoot().toPath().resolve("generated-chrome").resolve("gen.trace.json.gz");
        Path generatedPerfetto = tmp.getRoot().toPath().resolve("generated-perfetto").resolve("gen.pftrace.gz");
        TraceSummary chrome = TraceReader.summary(generatedChrome);
        TraceSummary perfetto = TraceReader.summary(generatedPerfetto);
        assertEquals(figures(chrome), figures(perfetto));
        assertTrue(perfetto.events() > 30_000);
    }

    @Test
    public void reportOfAJobOfPftracesShowsItsRanksAndTheDistributedView() throws Exception {
        JsonNode chrome = reportData(chromeJob);
        JsonNode perfetto = reportData(perfettoJob);
        assertEquals(2, perfetto.get("ranks").size());
        for (int i = 0; i < 2; i++) {
            ((ObjectNode) chrome.get("ranks").get(i)).remove("source");
            ((ObjectNode) perfetto.get("ranks").get(i)).remove("source");
        }
        assertEquals(chrome.get("ranks"), perfetto.get("ranks"));
        assertEquals(chrome.get("slowestRank"), perfetto.get("slowestRank"));
        assertEquals(chrome.get("medianStepNanos"), perfetto.get("medianStepNanos"));
        for (int i = 0; i < 2; i++) {
            ObjectNode a = (ObjectNode) chrome.get("traces").get(i);
            ObjectNode b = (ObjectNode) perfetto.get("traces").get(i);
            for (String view : List.of("ops", "opsByShape", "kernels", "kernelsByOp", "kernelLaunches", "steps",
                    "memory", "collectives", "overlap")) {
                assertEquals(view + " of rank " + i, a.get(view), b.get(view));
            }
        }
    }

    private static JsonNode reportData(Path dir) throws Exception {
        Path page = tmp.getRoot().toPath().resolve(dir.getParent().getFileName() + ".html");
        VerbRun r = VerbRun.of("report", dir.toString(), "-o", page.toString());
        assertEquals(r.err(), 0, r.code());
        String html = Files.readString(page);
        int from = html.indexOf('>', html.indexOf("id=\"vantage-data\"")) + 1;
        return new ObjectMapper().readTree(html.substring(from, html.indexOf("</script>", from)));
    }

    @Test
    public void compareOfAPftraceWithItsChromeExportFindsNoChange() throws Exception {
        Path json = tmp.getRoot().toPath().resolve("compare.json");
        VerbRun r = VerbRun.of("compare", chromeJob.resolve("rank-1.trace.json.gz").toString(),
                perfettoJob.resolve("rank-1.pftrace").toString(), "--format", "json", "-o", json.toString());
        assertEquals(r.err(), 0, r.code());
        JsonNode doc = new ObjectMapper().readTree(json.toFile());
        int compared = 0;
        for (String section : List.of("ops", "kernels", "steps", "memory")) {
            for (JsonNode item : doc.get(section)) {
                assertFalse(section + " " + item, item.get("status").asText().equals("new")
                        || item.get("status").asText().equals("vanished"));
                item.get("metrics").fields().forEachRemaining(f -> assertEquals(section + " " + item.get("name")
                        + " " + f.getKey(), 0.0, f.getValue().get("delta").asDouble(), 0.0));
                compared += item.get("metrics").size();
            }
        }
        assertTrue(compared > 10);
    }

    @Test
    public void convertAndAnalyzeGiveTheSameRowsFromPftracesAsFromChromeJson() throws Exception {
        List<ResultTable> chrome = convertAndAnalyze(chromeJob, "chrome-parquet");
        List<ResultTable> perfetto = convertAndAnalyze(perfettoJob, "perfetto-parquet");
        assertEquals(chrome.size(), perfetto.size());
        int rows = 0;
        for (int i = 0; i < chrome.size(); i++) {
            assertEquals(chrome.get(i).name(), perfetto.get(i).name());
            assertEquals(chrome.get(i).name(), chrome.get(i).columns(), perfetto.get(i).columns());
            assertEquals(chrome.get(i).name(), chrome.get(i).rows(), perfetto.get(i).rows());
            rows += chrome.get(i).rows().size();
        }
        assertTrue(rows > 10);
    }

    private static List<ResultTable> convertAndAnalyze(Path job, String name) throws Exception {
        Path out = tmp.getRoot().toPath().resolve(name);
        VerbRun r = VerbRun.of("convert", job.toString(), "-o", out.toString());
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().contains("(job job, rank 1, "));
        List<ResultTable> results = new ArrayList<>();
        try (DuckDbEngine db = DuckDbEngine.open(TraceFolders.find(out), null)) {
            for (Query q : Query.all()) {
                results.add(db.run(q));
            }
        }
        return results;
    }

    @Test
    public void aDirectoryWithBothExportsOfARunReadsEachRunOnce() throws Exception {
        Path both = tmp.newFolder("both").toPath();
        exportTo(both, rank(0, 0), "run-a");
        VerbRun r = VerbRun.of("report", both.toString(), "-o", both.resolve("r.html").toString());
        assertEquals(r.err(), 0, r.code());
        Path broken = tmp.newFolder("broken").toPath().resolve("cut.pftrace");
        Files.write(broken, new byte[] {0x0a, 0x7f, 0x01});
        VerbRun damaged = VerbRun.of("report", broken.toString(), "-o", both.resolve("x.html").toString());
        assertEquals(1, damaged.code());
        assertTrue(damaged.err(), damaged.err().contains(broken + " is not a readable Perfetto trace"));
    }

    private static void exportTo(Path dir, Trace trace, String name) throws IOException {
        new ChromeTraceExporter().export(trace, dir.resolve(name + ".trace.json.gz"));
        new PerfettoTraceExporter().export(trace, dir.resolve(name + ".pftrace"));
    }
}
