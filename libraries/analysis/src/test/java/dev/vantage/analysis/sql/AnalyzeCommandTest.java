package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.analysis.PublishedSchemas;
import dev.vantage.analysis.VerbRun;
import dev.vantage.exporter.parquet.fleet.Fleet;
import dev.vantage.exporter.parquet.fleet.FleetTrace;

/**
 * {@code vantage analyze} as the launcher calls it ({@link Tools#run}) on DuckDB, over 8 ranks written by the real
 * exporter, rank 5 slow. Expected numbers come from how {@link FleetTrace} lays out its work, not from a run.
 */
public class AnalyzeCommandTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Path dir;
    private static final int STEPS = 3;
    private static final int OPS = 64;

    @BeforeClass
    public static void writeRanks() throws Exception {
        dir = tmp.newFolder("job").toPath();
        Fleet.write(dir, "job-1", 8, STEPS, Math.round(OPS * 2.1 * STEPS), 5);
    }

    private static JsonNode json() throws Exception {
        VerbRun r = VerbRun.verb("analyze", dir.toString(), "--format", "json");
        assertEquals(r.err(), 0, r.code());
        return new ObjectMapper().readTree(r.out());
    }

    @Test
    public void theTableNamesTheSlowestRankAndTheOverlap() {
        VerbRun r = VerbRun.verb("analyze", dir.toString());
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().contains("job job-1: 8 ranks; slowest rank 5: mean step "));
        assertTrue(r.out(), r.out().contains("1 straggler (>= 1.10x)"));
        assertTrue(r.out(), r.out().matches("(?s).*job job-1: communication [0-9.]+ ms, 33\\.[0-9] % of it overlapped"
                + " with compute.*"));
        for (Query q : Query.all()) {
            assertTrue(q.name(), r.out().contains("== " + q.name() + " ("));
        }
        assertTrue(r.out(), r.out().contains("... 4 more rows"));
    }

    @Test
    public void stragglersAreTheRanksTenPercentAboveTheMedian() throws Exception {
        JsonNode rows = json().get("stragglers");
        assertEquals(8, rows.size());
        assertEquals(5, rows.get(0).get("rank").asInt());
        assertTrue(rows.get(0).get("straggler").asBoolean());
        double ratio = rows.get(0).get("vs_median").asDouble();
        assertTrue("about the generator's factor: " + ratio, Math.abs(ratio - FleetTrace.STRAGGLER_FACTOR) < 0.06);
        for (int i = 1; i < rows.size(); i++) {
            assertEquals(rows.get(i).toString(), false, rows.get(i).get("straggler").asBoolean());
        }
    }

    @Test
    public void everyStepOfEveryRankHasItsTime() throws Exception {
        JsonNode rows = json().get("step_time");
        assertEquals(8 * STEPS, rows.size());
        for (JsonNode row : rows) {
            assertTrue(row.toString(), row.get("step_ns").asLong() > OPS * 9_000L);
        }
    }

    @Test
    public void aThirdOfTheCollectiveRunsUnderTheNextKernel() throws Exception {
        // the collective's kernel lasts 1.5 op periods from the middle of its op; the next op's compute kernel
        // starts one period later, so the last half period of the collective, a third of it, overlaps compute
        for (JsonNode row : json().get("overlap")) {
            assertEquals(row.toString(), 100.0 / 3, row.get("overlap_pct").asDouble(), 0.05);
            assertEquals(row.get("comm_ns").asLong() - row.get("overlapped_ns").asLong(),
                    row.get("exposed_comm_ns").asLong());
        }
    }

    @Test
    public void idleIsStepTimeWithoutDeviceWork() throws Exception {
        JsonNode root = json();
        JsonNode idle = root.get("idle_time");
        assertEquals(8, idle.size());
        for (JsonNode row : idle) {
            long stepTotal = 0;
            for (JsonNode s : root.get("step_time")) {
                if (s.get("rank").asInt() == row.get("rank").asInt()) {
                    stepTotal += s.get("step_ns").asLong();
                }
            }
            assertEquals(row.toString(), stepTotal, row.get("step_ns").asLong());
            assertEquals(row.get("step_ns").asLong() - row.get("busy_ns").asLong(), row.get("idle_ns").asLong());
            double pct = row.get("idle_pct").asDouble();
            assertTrue(row.toString(), pct > 5 && pct < 60);
        }
    }

    @Test
    public void topOpsSumSelfTimeOverRanks() throws Exception {
        JsonNode top = json().get("top_ops");
        assertEquals("the generator's eight op names", 8, top.size());
        for (JsonNode row : top) {
            assertEquals(8, row.get("ranks").asInt());
            assertEquals(8L * STEPS * OPS / 8, row.get("calls").asLong());
        }
    }

    @Test
    public void theJsonIsValidAgainstItsPublishedSchema() throws Exception {
        JsonNode json = json();
        List<String> errors = PublishedSchemas.errors("analyze.schema.json", json);
        assertTrue(errors.toString(), errors.isEmpty());
        // not vacuous: a missing analysis and a stray column are refused
        ObjectNode missing = json.deepCopy();
        missing.remove("overlap");
        assertTrue(!PublishedSchemas.errors("analyze.schema.json", missing).isEmpty());
        ObjectNode stray = json.deepCopy();
        ((ObjectNode) stray.get("stragglers").get(0)).put("speed", 1);
        assertTrue(!PublishedSchemas.errors("analyze.schema.json", stray).isEmpty());
    }

    @Test
    public void csvHasABlockPerAnalysisAndOutputGoesToAFile() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("out.csv");
        VerbRun r = VerbRun.verb("analyze", dir.toString(), "--format", "csv", "-o", file.toString());
        assertEquals(r.err(), 0, r.code());
        assertEquals("", r.out());
        List<String> lines = Files.readAllLines(file);
        assertEquals("# step_time", lines.get(0));
        assertEquals("job_id,rank,step,step_ns,median_step_ns,vs_median", lines.get(1));
        assertEquals(1 + 1 + 8 * STEPS + 1, lines.indexOf("# stragglers"));
        String slowest = lines.get(lines.indexOf("# stragglers") + 2);
        assertTrue(slowest, slowest.matches("job-1,5,3,\\d+(\\.\\d+)?,\\d+,\\d+(\\.\\d+)?,1\\.\\d+,true"));
    }

    @Test
    public void badInputIsOneLineAndExitCodeTwo() throws Exception {
        Path empty = tmp.newFolder("empty").toPath();
        assertBad(VerbRun.verb("analyze", empty.toString()), "no Parquet traces in '" + empty + "'");
        assertBad(VerbRun.verb("analyze", dir.toString(), "--engine", "spark"), "--engine spark needs --remote sc://HOST:PORT");
        assertBad(VerbRun.verb("analyze", dir.toString(), "--engine", "hive"), "'--engine': 'hive' is not one of duckdb");
        assertBad(VerbRun.verb("analyze", dir.toString(), "--format", "xml"), "'--format': 'xml' is not one of table, csv, json");
        assertBad(VerbRun.verb("analyze", dir.resolve("nope").toString()), "is not a readable file or directory");
        assertBad(VerbRun.verb("analyze"), "missing required parameter: 'TRACE|DIR'");
        assertBad(VerbRun.verb("analyze", dir.toString(), "--memory-limit", "lots"), "--memory-limit 'lots'");
        assertBad(VerbRun.verb("analyze", dir.toString(), "-o", tmp.getRoot().toString()), "is a directory");
        Path broken = tmp.newFolder("broken", "r-rank0_parquet").toPath();
        Files.writeString(broken.resolve("events.parquet"), "x");
        assertBad(VerbRun.verb("analyze", broken.getParent().toString()), "has no kernels.parquet");
    }

    @Test
    public void aParquetFileCutShortIsNamedInOneLine() throws Exception {
        Path cut = tmp.newFolder("cut").toPath();
        copyTree(dir, cut);
        Path victim;
        try (java.util.stream.Stream<Path> s = Files.walk(cut)) {
            victim = s.filter(p -> p.getFileName().toString().equals("events.parquet")).sorted().findFirst()
                    .orElseThrow();
        }
        byte[] whole = Files.readAllBytes(victim);
        Files.write(victim, java.util.Arrays.copyOf(whole, whole.length / 2));
        VerbRun r = VerbRun.verb("analyze", cut.toString());
        assertBad(r, "analyze: " + victim + " is not a whole Parquet file (cut short, or not Parquet): ");
    }

    @Test
    public void aMemoryLimitTooSmallNamesTheFlagNotDuckDbsSettings() throws Exception {
        VerbRun r = VerbRun.verb("analyze", dir.toString(), "--memory-limit", "1KB");
        assertEquals(r.err(), 1, r.code());
        assertEquals(r.err(), 1, r.err().lines().count());
        assertTrue(r.err(), r.err().startsWith("vantage: analyze failed: DuckDB needs more memory than --memory-limit"
                + " 1KB allows ("));
        assertTrue(r.err(), r.err().strip().endsWith("); raise it"));
    }

    @Test
    public void anUnreachableSparkServerIsOneLineWithinSeconds() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        // nothing listens on the port any more
        VerbRun r = VerbRun.verb("analyze", dir.toString(), "--engine", "spark", "--remote", "sc://127.0.0.1:" + port);
        assertEquals(r.err(), 1, r.code());
        assertEquals("vantage: analyze: the Spark Connect server sc://127.0.0.1:" + port + " cannot be reached:"
                + " Connection refused\n", r.err());
    }

    private static void copyTree(Path from, Path to) throws java.io.IOException {
        try (java.util.stream.Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
    }

    private static void assertBad(VerbRun r, String message) {
        assertEquals(r.out() + r.err(), 2, r.code());
        assertTrue(r.err(), r.err().contains(message));
        assertEquals(r.err(), 1, r.err().lines().count());
        assertTrue(r.err(), r.err().startsWith("vantage: "));
    }
}
