package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

public class RunsCommandTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private static String line(String id, long start, String workload, String extra) {
        return dev.vantage.analysis.registry.RunRegistryTest.line(id, start, workload, extra);
    }

    private int runs(Map<String, String> env, String... args) {
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            List<String> line = new java.util.ArrayList<>(List.of("runs"));
            line.addAll(List.of(args));
            return Tools.run(line, env, o, e);
        }
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    public void listsRunsOldestFirstInATable() throws Exception {
        Path dir = tmp.newFolder().toPath();
        // written in the order the runs ended; listed in the order they started
        Files.write(dir.resolve("runs.jsonl"), List.of(line("81bc00000000", 1_795_453_569_000_000_000L, "mlp-train",
                ",\"rank\":1,\"world_size\":2"), line("3f9a1c2e7b4d", 1_795_453_564_000_000_000L, "matmul", "")));
        assertEquals(err(), 0, runs(Map.of(), "--dir", dir.toString()));
        String[] rows = out().split("\n");
        assertEquals(3, rows.length);
        assertTrue(rows[0], rows[0].matches("RUN +START \\(UTC\\) +WORKLOAD +RANK +DEVICE +STEPS +MEAN STEP +ARTIFACTS"));
        assertTrue(rows[1], rows[1].matches("3f9a1c2e7b4d +2026-11-23 17:06:04 +matmul +- +npu:0 +2 +3\\.000 ms +3"));
        assertTrue(rows[2], rows[2].matches("81bc00000000 +2026-11-23 17:06:09 +mlp-train +1 +npu:0 +2 +3\\.000 ms +3"));
    }

    @Test
    public void readsTheProfilerDirectoryOfTheEnvironmentAndPrintsJson() throws Exception {
        Path dir = tmp.newFolder().toPath();
        Files.write(dir.resolve("runs.jsonl"), List.of(line("3f9a1c2e7b4d", 5, "matmul", "")));
        assertEquals(0, runs(Map.of("VANTAGE_PROFILER_DIR", dir.toString()), "--json"));
        JsonNode list = new ObjectMapper().readTree(out());
        assertEquals(1, list.size());
        assertEquals("3f9a1c2e7b4d", list.get(0).path("run_id").asText());
        assertEquals(3, list.get(0).path("artifacts").size());
    }

    @Test
    public void aCorruptLineIsNamedSkippedAndMakesTheExitCodeTwo() throws Exception {
        Path dir = tmp.newFolder().toPath();
        Files.write(dir.resolve("runs.jsonl"), List.of(line("3f9a1c2e7b4d", 5, "matmul", ""), "garbage",
                line("81bc00000000", 6, "mlp-train", "")));
        assertEquals(2, runs(Map.of(), "--dir", dir.toString()));
        Path file = dir.resolve("runs.jsonl").toAbsolutePath().normalize();
        assertTrue(err(), err().startsWith("vantage: runs: warning: " + file + ":2: not JSON"));
        assertEquals(err(), 1, err().split("\n").length);
        assertTrue(out(), out().contains("3f9a1c2e7b4d") && out().contains("81bc00000000"));
    }

    @Test
    public void badArgumentsAreOneLineAndExitCodeTwo() throws Exception {
        assertEquals(2, runs(Map.of(), "--dir"));
        assertEquals("vantage: runs: missing required parameter for option '--dir' (DIR); see 'vantage runs --help'\n",
                err());
        err.reset();
        assertEquals(2, runs(Map.of(), "--since", "x"));
        assertEquals("vantage: unknown flag '--since' for 'runs'; see 'vantage runs --help'\n", err());
        err.reset();
        Path missing = tmp.getRoot().toPath().resolve("absent");
        assertEquals(2, runs(Map.of(), "--dir", missing.toString()));
        assertEquals("vantage: runs: " + missing + ": no such directory\n", err());
        assertEquals("", out());
    }
}
