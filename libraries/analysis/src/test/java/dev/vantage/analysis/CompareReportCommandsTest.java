package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code compare} and {@code report} as the launcher calls them: run ids and trace files resolved, outputs
 * written, and bad input refused before any work with exit code 2 and a line naming the value.
 */
public class CompareReportCommandsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path dir;
    private Path a;
    private Path b;

    /** A registry line of the shape {@code runs.jsonl} has, with one chrome artifact and its real sha256. */
    private String runLine(String id, long start, String trace) throws Exception {
        String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readAllBytes(dir.resolve(trace))));
        return runLine(id, start, trace, sha);
    }

    private static String runLine(String id, long start, String trace, String sha) {
        return "{\"schema_version\":1,\"run_id\":\"" + id + "\",\"trigger\":\"run\",\"status\":\"ok\","
                + "\"start_epoch_ns\":" + start + ",\"end_epoch_ns\":" + (start + 1000) + ","
                + "\"command_line\":[\"vantage\",\"run\",\"mlp-train\"],"
                + "\"configuration\":{\"workload\":\"mlp-train\",\"device\":\"npu:0\"},\"steps\":[],"
                + "\"artifacts\":[{\"path\":\"" + trace + "\",\"kind\":\"chrome\",\"bytes\":1,\"sha256\":\""
                + sha + "\"}]}";
    }

    @Before
    public void profileDirectory() throws Exception {
        dir = tmp.newFolder("profiles").toPath();
        a = copy("mlp-npu-batch64.trace.json.gz", dir);
        b = copy("mlp-npu-batch128.trace.json.gz", dir);
        Files.write(dir.resolve("runs.jsonl"), List.of(runLine("aaaa11112222", 100, a.getFileName().toString()),
                runLine("bbbb33334444", 200, b.getFileName().toString())));
    }

    private static Path copy(String name, Path to) throws Exception {
        try (InputStream in = CompareReportCommandsTest.class.getResourceAsStream(
                "/dev/vantage/analysis/traces/" + name)) {
            Path file = to.resolve(name);
            Files.copy(in, file);
            return file;
        }
    }

    @Test
    public void comparesTwoRunsByIdPrefixAsATable() {
        VerbRun r = VerbRun.verb("compare", "aaaa", "bbbb", "--dir", dir.toString());
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().startsWith("A: aaaa11112222 (mlp-npu-batch64.trace.json.gz, rank 0, 3 steps)"));
        // the host rows of the key averages, as the profile's table: 44 operators, 3 steps, 2 optimizer annotations and
        // 2 runtime calls
        assertTrue(r.out(), r.out().contains("Operators by |change of self time| (top 20 of 51)"));
        assertTrue(r.out(), r.out().contains("aten::mm"));
        assertTrue(r.out(), r.out().contains("NPU:0"));
    }

    @Test
    public void writesJsonToAFileForTracePaths() throws Exception {
        Path out = dir.resolve("delta.json");
        VerbRun r = VerbRun.verb("compare", a.toString(), b.toString(), "--format", "json", "-o", out.toString(), "--top",
                "5");
        assertEquals(r.err(), 0, r.code());
        assertEquals("comparison written: " + out.toAbsolutePath(), r.out().strip());
        JsonNode json = new ObjectMapper().readTree(out.toFile());
        assertEquals(5, json.get("ops").size());
        assertEquals(51, json.get("opCount").asInt());
        assertEquals(a.toString(), json.at("/a/label").asText());
        try (var files = Files.list(dir)) {
            assertFalse("no temporary file left", files.anyMatch(f -> f.getFileName().toString().endsWith(".tmp")));
        }
    }

    @Test
    public void refusesBadInputBeforeWorkNamingTheValue() {
        Path missing = dir.resolve("nope.trace.json");
        String[][] cases = {
            {missing.toString(), b.toString()}, {"'" + missing + "' is neither a trace file"},
            {a.toString(), b.toString(), "--format", "xml"}, {"'--format': 'xml' is not one of table, csv, json"},
            {a.toString(), b.toString(), "--top", "0"}, {"'--top': '0' is out of range (1 or more)"},
            {a.toString(), b.toString(), "-o", dir.resolve("no/such/x.csv").toString()}, {"does not exist"},
            {a.toString()}, {"compare takes two runs or traces, before and after; 1 was given: "},
            {a.toString(), b.toString(), a.toString()}, {"compare takes two runs or traces, before and after; 3 were"},
            {a.toString(), b.toString(), "--colour"}, {"unknown flag '--colour' for 'compare'"},
            {"cccc", b.toString(), "--dir", dir.toString()}, {"cccc"},
            {a.toString(), dir.toString()}, {"is a directory, not a trace file or a run id"},
        };
        for (int i = 0; i < cases.length; i += 2) {
            VerbRun r = VerbRun.verb("compare", cases[i]);
            assertEquals(List.of(cases[i]) + ": " + r.err(), 2, r.code());
            assertTrue(List.of(cases[i]) + ": " + r.err(), r.err().startsWith("vantage: ")
                    && r.err().contains(cases[i + 1][0]));
            assertEquals(1, r.err().lines().count());
        }
        VerbRun r = VerbRun.verb("report", dir.resolve("empty").toString(), "-o", dir.resolve("r.html").toString());
        assertEquals(r.err(), 2, r.code());
        VerbRun notHtml = VerbRun.verb("report", a.toString(), "-o", dir.resolve("r.txt").toString());
        assertEquals(notHtml.err(), 2, notHtml.code());
        assertTrue(notHtml.err(), notHtml.err().contains("should end in .html"));
        assertFalse(Files.exists(dir.resolve("r.txt")));
    }

    @Test
    public void reportsARunOfTwoCyclesExportedAsChromeAndTensorBoardByItsFirstCycle() throws Exception {
        // --profile-repeat 2 --profile-export chrome tensorboard: two cycles, each written twice; report took the four
        // files for four ranks of a job and refused them ("rank 0 appears 4 times")
        Path board = Files.createDirectories(dir.resolve("run"));
        Path tbA = Files.copy(a, board.resolve("host_1.1.pt.trace.json.gz"));
        Path tbB = Files.copy(b, board.resolve("host_1.2.pt.trace.json.gz"));
        StringBuilder artifacts = new StringBuilder();
        for (Object[] f : new Object[][] {{a, "chrome"}, {b, "chrome"}, {tbA, "tensorboard"}, {tbB, "tensorboard"}}) {
            Path file = (Path) f[0];
            String sha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(file)));
            artifacts.append(artifacts.length() == 0 ? "" : ",").append("{\"path\":\"")
                    .append(dir.relativize(file)).append("\",\"kind\":\"").append(f[1])
                    .append("\",\"bytes\":1,\"sha256\":\"").append(sha).append("\"}");
        }
        String cycles = runLine("cccc55556666", 300, "x", "0".repeat(64))
                .replaceFirst("\"artifacts\":\\[.*\\]", "\"artifacts\":[" + artifacts + "]");
        Files.write(dir.resolve("runs.jsonl"), List.of(cycles), java.nio.file.StandardOpenOption.APPEND);
        Path out = dir.resolve("cycles.html");
        VerbRun r = VerbRun.verb("report", "cccc", "--dir", dir.toString(), "-o", out.toString());
        assertEquals(r.err(), 0, r.code());
        assertEquals("report written: " + out + " (1 trace)", r.out().strip());
        assertEquals("vantage: run cccc55556666 recorded 2 schedule cycles, a trace each; the report is of the first, "
                + a.toAbsolutePath().normalize() + " (give another cycle's file to report that one)\n", r.err());
        VerbRun compare = VerbRun.verb("compare", "cccc", "aaaa", "--dir", dir.toString(), "--format", "json");
        assertEquals(compare.err(), 0, compare.code());
        assertEquals("cccc55556666", new ObjectMapper().readTree(compare.out()).at("/a/label").asText());
    }

    @Test
    public void refusesWithExitTwoNamingATraceThatIsNotJson() throws Exception {
        Path broken = dir.resolve("broken.trace.json");
        Files.writeString(broken, "not json");
        VerbRun r = VerbRun.verb("compare", broken.toString(), a.toString());
        assertEquals(r.err(), 2, r.code());
        assertEquals("vantage: " + broken + " is damaged at byte 0: it is not a JSON object or array\n", r.err());
    }

    @Test
    public void reportsARunADirectoryOfRanksAndATrace() throws Exception {
        Path one = dir.resolve("one.html");
        VerbRun r = VerbRun.verb("report", "bbbb", "--dir", dir.toString(), "-o", one.toString());
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().contains("(1 trace)"));
        assertTrue(Files.readString(one).contains("Vantage report: bbbb33334444"));

        // two runs of rank 0 are not the ranks of one job: refused, naming the rank and the files
        Path both = dir.resolve("both.html");
        r = VerbRun.verb("report", dir.toString(), "-o", both.toString());
        assertEquals(r.out(), 2, r.code());
        assertTrue(r.err(), r.err().contains("holds 2 traces of rank 0 (mlp-npu-batch128.trace.json.gz,"
                + " mlp-npu-batch64.trace.json.gz): several runs, or the schedule cycles of one;"));
        assertTrue(!Files.exists(both));

        // the ranks of one job: rank 0 and a copy of it as rank 1 of 2
        Path job = tmp.newFolder("job").toPath();
        copy("mlp-npu-batch64.trace.json.gz", job);
        asRank(a, 1, 2, job.resolve("rank1.trace.json.gz"));
        r = VerbRun.verb("report", job.toString(), "-o", both.toString());
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().contains("(2 traces)"));
        String page = Files.readString(both);
        assertTrue(page.contains("\"ranks\":[{"));
    }

    /** Writes a copy of a gzipped trace whose distributedInfo says it is rank {@code rank} of {@code world}. */
    private static void asRank(Path trace, int rank, int world, Path to) throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.node.ObjectNode root;
        try (InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(trace))) {
            root = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(in);
        }
        root.putObject("distributedInfo").put("backend", "hccl").put("rank", rank).put("world_size", world);
        try (java.io.OutputStream out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(to))) {
            json.writeValue(out, root);
        }
    }

    @Test
    public void aRunWhoseTraceAnotherRunWroteOverIsRefusedInOneLineByEveryReader() throws Exception {
        // run a's trace now holds what another run wrote under the same name
        Files.copy(b, a, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        for (String[] args : new String[][] {{"compare", "aaaa", "bbbb", "--dir", dir.toString()},
                {"report", "aaaa", "--dir", dir.toString(), "-o", dir.resolve("r.html").toString()},
                {"compare", a.toString(), b.toString(), "--dir", dir.toString()}}) {
            VerbRun r = VerbRun.of(args);
            assertEquals(List.of(args) + ": " + r.err(), 2, r.code());
            assertEquals(List.of(args) + ": " + r.err(), 1, r.err().lines().count());
            assertTrue(r.err(), r.err().contains(a + " ") && r.err().contains("changed since the run wrote it"
                    + " (sha256 in runs.jsonl:1 is "));
            assertTrue(r.err(), r.err().contains("another run may have written over it"));
        }
        assertFalse("no report written", Files.exists(dir.resolve("r.html")));
        VerbRun runs = VerbRun.verb("runs", "--dir", dir.toString());
        assertEquals(runs.err(), 2, runs.code());
        assertTrue(runs.err(), runs.err().startsWith("vantage: runs: warning: " + dir.resolve("runs.jsonl")
                + ":1: run aaaa11112222: " + a + " changed since the run wrote it"));
        assertTrue(runs.out(), runs.out().contains("bbbb33334444"));
        // run b is as it was written: read
        assertEquals(0, VerbRun.verb("compare", "bbbb", b.toString(), "--dir", dir.toString()).code());
    }
}
