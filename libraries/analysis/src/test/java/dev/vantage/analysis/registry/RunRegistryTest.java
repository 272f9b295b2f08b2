package dev.vantage.analysis.registry;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.profiler.api.RunRecord;

public class RunRegistryTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** A line as the profiler core writes one (the fields the reader uses; see run.schema.json). */
    public static String line(String id, long start, String workload, String extra) {
        return "{\"schema_version\":1,\"run_id\":\"" + id + "\",\"trigger\":\"run\",\"status\":\"ok\","
                + "\"start_epoch_ns\":" + start + ",\"end_epoch_ns\":" + (start + 5_000_000) + ","
                + "\"command_line\":[\"vantage\",\"run\",\"" + workload + "\"],"
                + "\"configuration\":{\"workload\":\"" + workload + "\",\"device\":\"npu:0\"},"
                + "\"steps\":[{\"step\":1,\"duration_ns\":2000000,\"memory\":{\"npu:0\":{\"allocated_bytes\":10,"
                + "\"peak_allocated_bytes\":30}}},{\"step\":2,\"duration_ns\":4000000}],"
                + "\"artifacts\":[{\"path\":\"board/w.1.pt.trace.json.gz\",\"kind\":\"tensorboard\",\"bytes\":3,"
                + "\"sha256\":\"" + "a".repeat(64) + "\"},{\"path\":\"m.trace.json.gz\",\"kind\":\"chrome\","
                + "\"bytes\":4,\"sha256\":\"" + "b".repeat(64) + "\"},{\"path\":\"m_csv/op_statistic.csv\","
                + "\"kind\":\"csv\",\"bytes\":5,\"sha256\":\"" + "c".repeat(64) + "\"}]" + extra + "}";
    }

    @Test
    public void aRunThatExportedOnlyPerfettoIsReadFromItsPftrace() throws Exception {
        String perfettoOnly = line("7e57000000aa", 100, "mlp-train", "").replaceFirst("\"artifacts\":\\[.*\\]",
                "\"artifacts\":[{\"path\":\"m.pftrace\",\"kind\":\"perfetto\",\"bytes\":4,\"sha256\":\""
                        + "d".repeat(64) + "\"}]");
        Path dir = registry(perfettoOnly, line("3f9a1c2e7b4d", 200, "matmul", ""));
        RunRegistry r = RunRegistry.open(dir);
        assertEquals(List.of(), r.problems());
        Path real = dir.toAbsolutePath().normalize();
        assertEquals(List.of(real.resolve("m.pftrace")), r.runs().get(0).traces());
        // a run with a Chrome trace is read from it, whatever else it exported
        assertEquals(real.resolve("m.trace.json.gz"), r.runs().get(1).traces().get(0));
        // a run that exported only TensorBoard's layout is read from it (the file once, as an older registry names it
        // once per cycle)
        String tensorboardOnly = line("7e57000000bb", 300, "mlp-train", "").replaceFirst("\\{\"path\":\"m\\.trace"
                + "\\.json\\.gz\",\"kind\":\"chrome\",\"bytes\":4,\"sha256\":\"b{64}\"\\},", "");
        tensorboardOnly = tensorboardOnly.replace("[{\"path\":\"board/", "[{\"path\":\"board/w.1.pt.trace.json.gz\","
                + "\"kind\":\"tensorboard\",\"bytes\":3,\"sha256\":\"" + "a".repeat(64) + "\"},{\"path\":\"board/");
        Path other = registry(tensorboardOnly);
        assertEquals(List.of(other.toAbsolutePath().normalize().resolve("board/w.1.pt.trace.json.gz")),
                RunRegistry.open(other).runs().get(0).traces());
    }

    private Path registry(String... lines) throws Exception {
        Path dir = tmp.newFolder().toPath();
        Files.write(dir.resolve(RunRegistry.FILE_NAME), List.of(lines));
        return dir;
    }

    @Test
    public void readsRunsWithTheirStepsAndAbsoluteArtifacts() throws Exception {
        Path dir = registry(line("3f9a1c2e7b4d", 100, "matmul", ""),
                line("81bc00000000", 200, "mlp-train", ",\"job_id\":\"0123456789ab\",\"rank\":1,\"world_size\":2"));
        RunRegistry r = RunRegistry.open(dir);
        assertEquals(List.of(), r.problems());
        assertEquals(2, r.runs().size());
        RunEntry a = r.runs().get(0);
        assertEquals("matmul", a.workload());
        assertEquals("npu:0", a.device());
        assertEquals(null, a.record().rank());
        assertEquals(3_000_000.0, a.meanStepNanos().getAsDouble(), 0);
        assertEquals(Long.valueOf(30), a.record().steps().get(0).peakAllocatedBytes().get("npu:0"));
        // one trace per cycle: the Chrome trace, not TensorBoard's copy of it; never the csv files
        Path real = dir.toAbsolutePath().normalize();
        assertEquals(List.of(real.resolve("m.trace.json.gz")), a.traces());
        RunEntry b = r.runs().get(1);
        assertEquals("0123456789ab", b.record().jobId());
        assertEquals(Integer.valueOf(1), b.record().rank());
        assertEquals(Integer.valueOf(2), b.record().worldSize());
        assertEquals(2, b.line());
    }

    @Test
    public void readsEachLineIntoTheRunRecordOfTheProfilerApi() throws Exception {
        Path dir = registry(line("3f9a1c2e7b4d", 100, "matmul", ",\"job_id\":\"0123456789ab\",\"rank\":0,"
                + "\"world_size\":2,\"devices\":[{\"name\":\"npu:0\",\"emulated\":true,"
                + "\"memory_capacity_bytes\":4096},{\"name\":\"cpu\"}],\"platform\":{\"java\":\"17\"}")
                .replace("\"device\":\"npu:0\"}", "\"device\":\"npu:0\",\"steps\":2,\"ddp\":true,"
                        + "\"activities\":[\"CPU\",\"NPU\"],\"schedule\":{\"wait\":0,\"active\":2},\"seed\":null}"));
        RunRegistry r = RunRegistry.open(dir);
        assertEquals(List.of(), r.problems());
        RunEntry entry = r.runs().get(0);
        Path real = dir.toAbsolutePath().normalize();
        RunRecord expected = new RunRecord("3f9a1c2e7b4d", "0123456789ab", 0, 2, "run", "ok", 100, 5_000_100,
                List.of("vantage", "run", "matmul"),
                Map.of("workload", "matmul", "device", "npu:0", "steps", 2L, "ddp", true,
                        "activities", List.of("CPU", "NPU"), "schedule", Map.of("wait", 0L, "active", 2L)),
                List.of(new RunRecord.Device("npu:0", true, 4096L), new RunRecord.Device("cpu", null, null)),
                List.of(new RunRecord.Step(1, 2_000_000, Map.of("npu:0", 10L), Map.of("npu:0", 30L)),
                        new RunRecord.Step(2, 4_000_000, Map.of(), Map.of())),
                List.of(new RunRecord.Artifact(real.resolve("board/w.1.pt.trace.json.gz"), "tensorboard"),
                        new RunRecord.Artifact(real.resolve("m.trace.json.gz"), "chrome"),
                        new RunRecord.Artifact(real.resolve("m_csv/op_statistic.csv"), "csv")));
        assertEquals(expected, entry.record());
        // what the reader adds: where the line is, and the line itself for what RunRecord has no place for
        assertEquals(r.file(), entry.file());
        assertEquals(1, entry.line());
        assertEquals("17", entry.json().path("platform").path("java").asText());
        assertEquals("b".repeat(64), entry.json().path("artifacts").get(1).path("sha256").asText());
    }

    @Test
    public void skipsAndNamesALineThatTheRunRecordRefuses() throws Exception {
        String good = line("3f9a1c2e7b4d", 1, "a", "");
        Path dir = registry(good, line("3f9a", 2, "b", ""),
                good.replace("\"end_epoch_ns\":5000001", "\"end_epoch_ns\":0").replace("3f9a1c2e7b4d", "000000000001"),
                good.replace("\"status\":\"ok\",", "").replace("3f9a1c2e7b4d", "000000000002"),
                line("000000000003", 3, "c", ",\"devices\":[{\"emulated\":true}]"));
        RunRegistry r = RunRegistry.open(dir);
        assertEquals(List.of("3f9a1c2e7b4d"), r.runs().stream().map(e -> e.record().runId()).toList());
        String file = r.file().toString();
        assertEquals(List.of(file + ":2: a run id is 12 lowercase hex digits, not '3f9a'; line skipped",
                file + ":3: the run ends (0) before it starts (1); line skipped",
                file + ":4: no status; line skipped",
                file + ":5: a device without a name; line skipped"), r.problems());
    }

    @Test
    public void findsARunByItsIdOrAUniquePrefixAndRefusesAnAmbiguousOne() throws Exception {
        RunRegistry r = RunRegistry.open(registry(line("3f9a1c2e7b4d", 1, "a", ""), line("3f9b00000000", 2, "b", ""),
                line("81bc00000000", 3, "c", "")));
        assertEquals("c", r.find("8").workload());
        assertEquals("a", r.find("3f9a").workload());
        assertEquals("b", r.find("3f9b00000000").workload());
        String ambiguous = assertThrows(IllegalArgumentException.class, () -> r.find("3f9")).getMessage();
        assertTrue(ambiguous, ambiguous.contains("ambiguous") && ambiguous.contains("3f9a1c2e7b4d, 3f9b00000000"));
        String none = assertThrows(IllegalArgumentException.class, () -> r.find("ff")).getMessage();
        assertTrue(none, none.startsWith("no run 'ff' in " + r.file()));
    }

    @Test
    public void skipsAndNamesACorruptLineAndKeepsTheOthers() throws Exception {
        Path dir = registry(line("3f9a1c2e7b4d", 1, "a", ""), "{\"run_id\":\"half", "",
                "{\"run_id\":\"000000000000\",\"start_epoch_ns\":1}", line("81bc00000000", 3, "c", ""));
        RunRegistry r = RunRegistry.open(dir);
        assertEquals(List.of("3f9a1c2e7b4d", "81bc00000000"),
                r.runs().stream().map(e -> e.record().runId()).toList());
        Path file = dir.resolve(RunRegistry.FILE_NAME).toAbsolutePath().normalize();
        assertEquals(2, r.problems().size());
        assertTrue(r.problems().get(0), r.problems().get(0).startsWith(file + ":2: not JSON"));
        assertEquals(file + ":4: no end_epoch_ns; line skipped", r.problems().get(1));
        assertEquals(5, r.runs().get(1).line());
    }

    @Test
    public void refusesAMissingDirectoryAFolderWithoutARegistryAndAFileOfNoRuns() throws Exception {
        Path missing = tmp.getRoot().toPath().resolve("nope");
        assertEquals(missing + ": no such directory",
                assertThrows(IllegalArgumentException.class, () -> RunRegistry.open(missing)).getMessage());
        Path empty = tmp.newFolder().toPath();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RunRegistry.open(empty)).getMessage()
                .startsWith(empty + ": no runs.jsonl"));
        Path text = tmp.newFile("notes.txt").toPath();
        Files.writeString(text, "hello\n[1,2]\n");
        assertEquals("not a run registry: " + text.toAbsolutePath() + ":1: not JSON (Unrecognized token 'hello':"
                + " was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false'))",
                assertThrows(IllegalArgumentException.class, () -> RunRegistry.open(text)).getMessage());
    }
}
