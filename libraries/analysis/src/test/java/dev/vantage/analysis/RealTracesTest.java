package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

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
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Real PyTorch traces (src/test/resources/dev/vantage/analysis/real, with their provenance and licences) against
 * what other tools report for the same files: the TensorBoard profiler plugin's operator table and steps for two
 * Kineto traces (ROCm, and CUDA on two streams), torch's own {@code key_averages()} table for a legacy trace of
 * Debian's torch 1.13; the 2022 linkage (a runtime call's and its kernel's {@code External id} is their
 * {@code correlation}) gives the same figures as the modern one; and every analysis verb runs on them.
 */
public class RealTracesTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static final ObjectMapper JSON = new ObjectMapper();

    static Path real(String name) throws URISyntaxException {
        java.net.URL url = RealTracesTest.class.getResource("real/" + name);
        assertNotNull("missing test resource real/" + name, url);
        return Path.of(url.toURI());
    }

    /** The operators ({@code cpu_op}) of the key averages: the rows of the plugin's operator view. */
    private static Map<String, OpStats> ops(TraceSummary s) {
        Map<String, OpStats> m = new HashMap<>();
        s.ops().stream().filter(OpStats::isOperator).forEach(o -> m.put(o.name(), o));
        return m;
    }

    /** Every operator of the plugin's table, and no other: calls exactly; times within 1 ns per call (its doubles). */
    private static void assertOperatorsAsThePlugin(String trace, TraceSummary s) throws Exception {
        JsonNode plugin = JSON.readTree(real(trace + ".tb-plugin.json").toFile()).get("ops");
        Map<String, OpStats> ours = ops(s);
        TreeSet<String> names = new TreeSet<>();
        plugin.fieldNames().forEachRemaining(names::add);
        assertEquals(trace + ": the same operators", names, new TreeSet<>(ours.keySet()));
        long deviceTotal = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = plugin.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode p = e.getValue();
            OpStats o = ours.get(e.getKey());
            String what = trace + " " + e.getKey();
            long calls = p.get("calls").asLong();
            assertEquals(what + " calls", calls, o.count());
            assertNear(what + " host total", p.get("host_total_us"), o.totalNanos(), calls);
            assertNear(what + " host self", p.get("host_self_us"), o.selfNanos(), calls);
            assertNear(what + " device total", p.get("device_total_us"), o.deviceTotalNanos(), calls);
            assertNear(what + " device self", p.get("device_self_us"), o.deviceSelfNanos(), calls);
            deviceTotal += o.deviceTotalNanos();
        }
        assertTrue(trace + " has device time to compare", deviceTotal > 0);
    }

    private static void assertNear(String what, JsonNode micros, long nanos, long calls) {
        assertEquals(what, micros.asDouble() * 1000, nanos, calls);
    }

    @Test
    public void rocmOperatorsAndStepEqualTheTensorBoardPlugins() throws Exception {
        TraceSummary s = TraceReader.summary(real("rocm-mi250.json.gz"));
        assertOperatorsAsThePlugin("rocm-mi250", s);
        JsonNode steps = JSON.readTree(real("rocm-mi250.tb-plugin.json").toFile()).get("steps");
        // the plugin drops a last step that launched less than 80 % of the device work of the one before (its
        // remove-tail-steps rule, a display choice); the steps it shows are Vantage's
        assertEquals(1, steps.size());
        assertEquals(2, s.steps().size());
        assertEquals(steps.get(0).get("step").asLong(), s.steps().get(0).step());
        assertEquals(steps.get(0).get("total_us").asDouble() * 1000, s.steps().get(0).durationNanos(), 1);
    }

    @Test
    public void cudaOperatorsOnTwoStreamsEqualTheTensorBoardPlugins() throws Exception {
        TraceSummary s = TraceReader.summary(real("cuda-event-sync-multi-stream.json.gz"));
        assertOperatorsAsThePlugin("cuda-event-sync-multi-stream", s);
        // no ProfilerStep#N in this trace: the plugin shows the whole trace as one step "0", Vantage no step
        assertTrue(s.steps().isEmpty());
    }

    /** The trace rewritten as torch 1.10-1.13 linked device work: runtime calls' and work's External id := correlation. */
    static Path oldLinkage(Path modern, Path target) throws Exception {
        JsonNode doc;
        try (GZIPInputStream in = new GZIPInputStream(Files.newInputStream(modern))) {
            doc = JSON.readTree(in);
        }
        int rewritten = 0;
        for (JsonNode e : doc.get("traceEvents")) {
            String cat = e.path("cat").asText("").toLowerCase(java.util.Locale.ROOT);
            JsonNode args = e.get("args");
            boolean linked = cat.endsWith("_runtime") || cat.equals("runtime") || cat.equals("kernel")
                    || cat.equals("gpu_memcpy") || cat.equals("gpu_memset");
            if ("X".equals(e.path("ph").asText()) && linked && args != null && args.has("correlation")) {
                ((ObjectNode) args).remove("external id");
                ((ObjectNode) args).set("External id", args.get("correlation"));
                rewritten++;
            }
        }
        assertTrue(rewritten > 10);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(target))) {
            JSON.writeValue(out, doc);
        }
        return target;
    }

    @Test
    public void theOldLinkageGivesTheSameFiguresSoThePluginsToo() throws Exception {
        Path modern = real("rocm-mi250.json.gz");
        Path old = oldLinkage(modern, tmp.getRoot().toPath().resolve("rocm-mi250-2022-linkage.json.gz"));
        TraceSummary a = TraceReader.summary(modern);
        TraceSummary b = TraceReader.summary(old);
        assertEquals(a.ops(), b.ops());
        assertEquals(a.kernelsByOp(), b.kernelsByOp());
        assertEquals(a.steps(), b.steps());
        // the plugin links a runtime call by External id only: on the rewritten file it shows no device time at
        // all; Vantage finds each call's operator by its thread and time and shows the plugin's figures of the
        // original
        assertOperatorsAsThePlugin("rocm-mi250", b);
    }

    private static final Pattern TORCH_ROW = Pattern.compile(
            "\\s*(.+?)\\s+[\\d.]+%\\s+([\\d.]+)us\\s+[\\d.]+%\\s+([\\d.]+)us\\s+\\S+\\s+.*?\\s(\\d+)\\s+\\S+\\s*$");

    @Test
    public void theLegacyTraceEqualsTorchsOwnTable() throws Exception {
        TraceSummary s = TraceReader.summary(real("torch-1.13-legacy.trace.json"));
        assertEquals("legacy", s.format());
        Map<String, OpStats> ours = ops(s);
        int rows = 0;
        for (String line : Files.readAllLines(real("torch-1.13-legacy.key_averages.txt"))) {
            Matcher m = TORCH_ROW.matcher(line);
            if (line.startsWith("---") || line.contains("Self CPU %") || !m.matches()) {
                continue;
            }
            String name = m.group(1).strip();
            long self = Math.round(Double.parseDouble(m.group(2)) * 1000);
            long total = Math.round(Double.parseDouble(m.group(3)) * 1000);
            long calls = Long.parseLong(m.group(4));
            OpStats o = ours.get(name);
            assertNotNull(name, o);
            assertEquals(name + " calls", calls, o.count());
            assertEquals(name + " total", total, o.totalNanos());
            // torch subtracts its children's integer microseconds, as Vantage does, but nests an event that starts
            // where its sibling ends differently: at most 1 us per call apart
            assertEquals(name + " self", self, o.selfNanos(), 1000.0 * calls);
            rows++;
        }
        assertEquals("torch's 15 rows", 15, rows);
    }

    @Test
    public void reportCompareConvertAndAnalyzeRunOnTheRealTraces() throws Exception {
        Path job = tmp.newFolder("real-job").toPath();
        Files.copy(real("rocm-mi250.json.gz"), job.resolve("rank-0.json.gz"));
        oldLinkage(real("rocm-mi250.json.gz"), job.resolve("rank-1.json.gz"));
        Files.copy(real("torch-1.13-legacy.trace.json"), job.resolve("rank-2.json"));
        // this one says it is rank 0 (distributedInfo): a job of its own
        Path single = tmp.getRoot().toPath().resolve("event-sync.html");
        VerbRun one = VerbRun.of("report", real("cuda-event-sync-multi-stream.json.gz").toString(), "-o",
                single.toString());
        assertEquals(one.err(), 0, one.code());

        Path page = tmp.getRoot().toPath().resolve("real.html");
        VerbRun report = VerbRun.of("report", job.toString(), "-o", page.toString());
        assertEquals(report.err(), 0, report.code());
        String html = Files.readString(page);
        int from = html.indexOf('>', html.indexOf("id=\"vantage-data\"")) + 1;
        JsonNode data = JSON.readTree(html.substring(from, html.indexOf("</script>", from)));
        assertEquals(3, data.get("traces").size());
        assertEquals(3, data.get("ranks").size());
        // the traces without distributedInfo get their ranks from their file names, as convert gives them
        assertEquals(2, data.get("traces").get(2).get("rank").asInt());

        Path json = tmp.getRoot().toPath().resolve("linkages.json");
        VerbRun compare = VerbRun.of("compare", job.resolve("rank-0.json.gz").toString(),
                job.resolve("rank-1.json.gz").toString(), "--format", "json", "-o", json.toString());
        assertEquals(compare.err(), 0, compare.code());
        JsonNode doc = JSON.readTree(json.toFile());
        assertTrue(doc.get("ops").size() > 10);
        for (JsonNode op : doc.get("ops")) {
            assertFalse(op.toString(), op.get("status").asText().equals("new"));
            op.get("metrics").fields().forEachRemaining(m -> assertEquals(op.get("name") + " " + m.getKey(), 0.0,
                    m.getValue().get("delta").asDouble(), 0.0));
        }

        Path out = tmp.getRoot().toPath().resolve("real-parquet");
        VerbRun convert = VerbRun.of("convert", job.toString(), "-o", out.toString());
        assertEquals(convert.err(), 0, convert.code());
        assertTrue(convert.out(), convert.out().contains("rank 2, legacy"));
        List<TraceSummary> ranks = new ArrayList<>();
        for (String f : List.of("rank-0.json.gz", "rank-1.json.gz", "rank-2.json")) {
            ranks.add(TraceReader.summary(job.resolve(f)));
        }
        try (DuckDbEngine db = DuckDbEngine.open(TraceFolders.find(out), null)) {
            ResultTable top = null;
            for (Query q : Query.all()) {
                ResultTable t = db.run(q);
                if (t.name().equals("top_ops")) {
                    top = t;
                }
            }
            assertNotNull(top);
            assertFalse(top.rows().isEmpty());
            for (List<Object> row : top.rows()) {
                String name = (String) row.get(top.column("name"));
                long self = 0;
                for (TraceSummary s : ranks) {
                    OpStats o = ops(s).get(name);
                    self += o == null ? 0 : o.selfNanos();
                }
                assertEquals(name, self, row.get(top.column("total_self_ns")));
            }
        }
    }
}
