package dev.vantage.analysis.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.analysis.PublishedSchemas;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.Delta;
import dev.vantage.trace.engine.summary.KernelStats;
import dev.vantage.trace.engine.summary.MemoryCurve;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;


/** Deltas, their order and flags, and the three output forms, on hand-made summaries and on two real traces. */
public class ComparisonTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static OpStats op(String name, long count, long self, long total) {
        return new OpStats(name, "cpu_op", null, count, self, total, 0, 0, total / count, total);
    }

    private static TraceSummary summary(List<OpStats> ops, List<KernelStats> kernels, List<StepStats> steps,
            List<MemoryCurve> memory) {
        return new TraceSummary("t.trace.json", -1, 1, 0, ops, ops, kernels, kernels, steps, memory);
    }

    private static StepStats step(long number, long duration) {
        return new StepStats(number, 0, duration, duration / 2, 0, 0, 0, 0, duration / 2, 0);
    }

    private Comparison handMade() {
        TraceSummary a = summary(List.of(op("aten::mm", 4, 1000, 2000), op("aten::add", 2, 500, 500),
                op("aten::gone", 1, 50, 50)), List.of(new KernelStats("gemm", "kernel", null, 4, 800, 100, 300, 200,
                300)), List.of(step(1, 10_000), step(2, 20_000)),
                List.of(new MemoryCurve("NPU:0", 3, 1 << 20, 2 << 20, List.of())));
        TraceSummary b = summary(List.of(op("aten::mm", 4, 900, 1900), op("aten::add", 2, 900, 950),
                op("aten::new", 3, 70, 70)), List.of(new KernelStats("gemm", "kernel", null, 4, 1000, 100, 400, 250,
                400), new KernelStats("Memset", "memset", null, 1, 5, 5, 5, 5, 5)), List.of(step(5, 12_000)),
                List.of(new MemoryCurve("NPU:0", 4, 3 << 20, 2 << 20, List.of())));
        return Comparison.of("A", a, "B", b);
    }

    @Test
    public void sortsOperatorsByAbsoluteSelfTimeChangeAndFlagsNewAndVanished() {
        Comparison c = handMade();
        List<String> order = c.ops().stream().map(d -> d.name() + ":" + d.status()).toList();
        // |Δ self|: add 400, mm 100, new 70, gone 50
        assertEquals(List.of("aten::add:both", "aten::mm:both", "aten::new:new", "aten::gone:vanished"), order);
        Delta gone = c.ops().get(3);
        assertEquals(Long.valueOf(50), gone.metrics().get("selfNanos").a());
        assertNull(gone.metrics().get("selfNanos").b());
        assertNull(gone.metrics().get("selfNanos").delta());
        Delta add = c.ops().get(0);
        assertEquals(Long.valueOf(400), add.metrics().get("selfNanos").delta());
        assertEquals(80.0, add.metrics().get("selfNanos").deltaPercent(), 1e-9);
        assertEquals(Long.valueOf(450), add.metrics().get("totalNanos").delta());
    }

    @Test
    public void pairsStepsByPositionAndAddsTheirMean() {
        Comparison c = handMade();
        assertEquals(3, c.steps().size());
        assertEquals("ProfilerStep#1 / ProfilerStep#5", c.steps().get(0).detail());
        assertEquals(Long.valueOf(2000), c.steps().get(0).metrics().get("durationNanos").delta());
        assertEquals("vanished", c.steps().get(1).status());
        Delta mean = c.steps().get(2);
        assertEquals("mean", mean.name());
        assertEquals(Long.valueOf(10_000), mean.metrics().get("durationNanos").a());
        assertEquals(Long.valueOf(12_000), mean.metrics().get("durationNanos").b());
        assertEquals(Long.valueOf(2 << 20), c.memory().get(0).metrics().get("peakAllocatedBytes").delta());
    }

    @Test
    public void writesAnAlignedTableWithUnitsAndFlags() throws IOException {
        StringWriter out = new StringWriter();
        CompareFormat.TABLE.write(handMade(), 2, out);
        String table = out.toString();
        assertTrue(table, table.contains("Operators by |change of self time| (top 2 of 4)"));
        assertTrue(table, table.contains("+0.400 µs"));
        assertTrue(table, table.contains("NEW"));
        assertTrue(table, table.contains("+2.00 MiB"));
        List<String> opLines = table.lines().dropWhile(l -> !l.startsWith("Operators")).skip(1)
                .takeWhile(l -> !l.isBlank()).toList();
        assertEquals(table, 3, opLines.size());
        // aligned: every row of a block is as long as its header, the last column right-aligned
        assertEquals(table, opLines.get(0).length(), opLines.get(1).length());
        assertEquals(table, opLines.get(0).length(), opLines.get(2).length());
    }

    @Test
    public void writesCsvOneRowPerItemAndMetric() throws IOException {
        StringWriter out = new StringWriter();
        CompareFormat.CSV.write(handMade(), -1, out);
        List<String> lines = out.toString().lines().toList();
        assertEquals("section,name,detail,status,metric,a,b,delta,delta_pct", lines.get(0));
        assertTrue(lines.contains("ops,aten::add,,both,selfNanos,500,900,400,80.00"));
        assertTrue(lines.contains("ops,aten::gone,,vanished,count,1,,,"));
        assertTrue(lines.contains("kernels,Memset,memset,new,totalNanos,,5,,"));
        // 4 ops x 7 metrics + 2 kernels x 6 + 3 steps x 8 + 1 device x 3
        assertEquals(1 + 28 + 12 + 24 + 3, lines.size());
    }

    @Test
    public void csvQuotesANameWithACommaAQuoteAndANewlineAndNothingElse() throws IOException {
        String odd = "aten::odd,\"op\"\nsecond line";
        TraceSummary a = summary(List.of(op(odd, 1, 10, 10), op("aten::mm", 4, 1000, 2000)), List.of(), List.of(),
                List.of());
        TraceSummary b = summary(List.of(op(odd, 2, 30, 30), op("aten::mm", 4, 900, 1900)), List.of(), List.of(),
                List.of());
        StringWriter out = new StringWriter();
        CompareFormat.CSV.write(Comparison.of("A", a, "B", b), -1, out);
        String text = out.toString();

        // read back with an independent parser: every row has its nine fields, the odd name comes back whole
        List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(text)).getRecords();
        assertEquals(1 + 2 * 7, records.size());
        for (CSVRecord r : records) {
            assertEquals(r.toString(), 9, r.size());
        }
        List<CSVRecord> oddRows = records.stream().filter(r -> r.get(1).equals(odd)).toList();
        assertEquals(7, oddRows.size());
        CSVRecord self = oddRows.stream().filter(r -> r.get(4).equals("selfNanos")).findFirst().orElseThrow();
        assertEquals(List.of("ops", odd, "", "both", "selfNanos", "10", "30", "20", "200.00"), self.toList());

        // byte for byte: only the odd name is quoted (its quotes doubled); every other row is its fields joined
        assertTrue(text, text.contains(
                "\nops,\"aten::odd,\"\"op\"\"\nsecond line\",,both,selfNanos,10,30,20,200.00\n"));
        for (CSVRecord r : records) {
            if (!r.get(1).equals(odd)) {
                assertTrue(r.toString(), text.contains(String.join(",", r.toList()) + "\n"));
            }
        }
        assertTrue(text, text.startsWith("section,name,detail,status,metric,a,b,delta,delta_pct\n"));
    }

    @Test
    public void realComparisonJsonValidatesAgainstThePublishedSchema() throws IOException {
        TraceSummary a = TraceReader.summary(resource("mlp-npu-batch64.trace.json.gz"));
        TraceSummary b = TraceReader.summary(resource("mlp-npu-batch128.trace.json.gz"));
        List<Comparison> comparisons = new ArrayList<>(List.of(Comparison.of("a", a, "b", b), handMade()));
        for (Comparison c : comparisons) {
            StringWriter out = new StringWriter();
            CompareFormat.JSON.write(c, -1, out);
            JsonNode json = new ObjectMapper().readTree(out.toString());
            List<String> errors = PublishedSchemas.errors("compare.schema.json", json);
            assertTrue(errors.toString(), errors.isEmpty());
        }
        // and the schema is not vacuous: a wrong status, a missing metric and a stray field are refused
        StringWriter out = new StringWriter();
        CompareFormat.JSON.write(handMade(), -1, out);
        String text = out.toString();
        for (String broken : List.of(text.replaceFirst("\"status\" : \"both\"", "\"status\" : \"changed\""),
                text.replaceFirst("\"count\" :", "\"calls\" :"),
                text.replaceFirst("\"schemaVersion\" : 1", "\"schemaVersion\" : 1, \"extra\" : 0"),
                text.replaceFirst("\"a\" : null", "\"a\" : 3"))) {
            assertTrue(broken, !broken.equals(text));
            assertTrue(broken, !PublishedSchemas.errors("compare.schema.json", new ObjectMapper().readTree(broken))
                    .isEmpty());
        }
    }

    static Path resource(String name) throws IOException {
        Path dir = Files.createTempDirectory("traces");
        Path file = dir.resolve(name);
        try (InputStream in = ComparisonTest.class.getResourceAsStream("/dev/vantage/analysis/traces/" + name)) {
            Files.copy(in, file);
        }
        return file;
    }
}
