package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/**
 * The run registry and the published JSON Schemas, on the built distribution: a profiled run on an emulated NPU
 * (chrome, TensorBoard, MEM with its memory timeline, a JSON memory snapshot) and a two-rank {@code launch} each
 * append their lines to {@code runs.jsonl}; every JSON file they wrote validates against its schema (networknt's
 * validator, draft 2020-12), and damaged copies of them do not; {@code vantage runs} lists the runs and names a
 * corrupt line.
 */
public class RunRegistryIT {

    private static final Path FULL = Distributions.home("full");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SCHEMAS = "dev/vantage/analysis/schemas/";

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Path dir;
    private static LauncherProcess.Result single;
    private static LauncherProcess.Result launch;
    private static SchemaRegistry registry;

    @BeforeClass
    public static void runTwice() throws Exception {
        dir = tmp.newFolder("profiles").toPath();
        single = LauncherProcess.run(FULL, "run", "mlp-train", "--device", "npu", "--steps", "5", "--profile",
                "--profile-dir", dir.toString(), "--profile-activities", "CPU", "NPU", "MEM", "--profile-export",
                "chrome", "tensorboard", "--memory-snapshot", dir.resolve("snapshot.json").toString());
        assertEquals(single.out() + single.err(), 0, single.exitCode());
        launch = LauncherProcess.run(FULL, "launch", "--nproc", "2", "--master-port", Integer.toString(freePort()),
                "matmul", "--steps", "4", "--profile", "--profile-dir", dir.toString());
        assertEquals(launch.out() + launch.err(), 0, launch.exitCode());
        // schemas refer to each other by their $id; they are read from the analysis jar, where users find them
        registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                b -> b.schemaIdResolvers(r -> r.mapPrefix("https://vantage.dev/schemas/", "classpath:" + SCHEMAS)));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Schema schema(String name) {
        return registry.getSchema(SchemaLocation.of("https://vantage.dev/schemas/" + name));
    }

    private static List<String> errors(String schema, JsonNode document) throws Exception {
        List<String> messages = new ArrayList<>();
        for (Error e : schema(schema).validate(JSON.writeValueAsString(document), InputFormat.JSON)) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }

    private static void assertValid(String schema, JsonNode document, String what) throws Exception {
        List<String> errors = errors(schema, document);
        assertTrue(what + " against " + schema + ": " + errors, errors.isEmpty());
    }

    private static List<ObjectNode> lines() throws Exception {
        List<ObjectNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("runs.jsonl"))) {
            lines.add((ObjectNode) JSON.readTree(line));
        }
        return lines;
    }

    private static JsonNode read(Path file) throws Exception {
        try (InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            return JSON.readTree(in);
        }
    }

    private static List<Path> files(String suffix) throws Exception {
        try (Stream<Path> walk = Files.walk(dir)) {
            // TensorBoard's <worker>.<ns>.pt.trace.json.gz ends as the chrome exporter's files do
            return walk.filter(p -> p.getFileName().toString().endsWith(suffix)
                    && (suffix.startsWith(".pt.") || !p.getFileName().toString().endsWith(".pt" + suffix)))
                    .sorted().toList();
        }
    }

    @Test
    public void everyProfiledRunAndEveryRankAppendsOneLineThatSaysWhatItWrote() throws Exception {
        List<ObjectNode> lines = lines();
        assertEquals(3, lines.size());
        ObjectNode run = lines.get(0);
        assertEquals("mlp-train", run.path("configuration").path("workload").asText());
        assertEquals("npu:0", run.path("devices").get(0).path("name").asText());
        assertTrue(run.path("devices").get(0).path("emulated").asBoolean());
        assertEquals(5, run.path("steps").size());
        assertTrue(run.path("steps").get(4).path("memory").path("npu:0").path("peak_allocated_bytes").asLong() > 0);
        assertTrue(run.toString(), run.path("bundles").toString().contains("\"dev.vantage.profiler.core\""));
        assertTrue(run.path("job_id").isMissingNode());
        Set<String> kinds = new TreeSet<>();
        for (JsonNode a : run.path("artifacts")) {
            kinds.add(a.path("kind").asText());
            Path file = dir.resolve(a.path("path").asText());
            byte[] bytes = Files.readAllBytes(file);
            assertEquals(a.toString(), a.path("bytes").asLong(), bytes.length);
            assertEquals(a.toString(), a.path("sha256").asText(),
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
        }
        assertEquals(Set.of("chrome", "tensorboard", "memory-timeline", "memory-snapshot", "memory-summary"), kinds);
        // the trace carries the run's id
        Path trace = files(".trace.json.gz").stream().filter(p -> p.getFileName().toString().startsWith("mlp-train"))
                .findFirst().orElseThrow();
        assertEquals(run.path("run_id").asText(), read(trace).path("vantage.run_id").asText());

        ObjectNode rank0 = lines.get(1).path("rank").asInt() == 0 ? lines.get(1) : lines.get(2);
        ObjectNode rank1 = rank0 == lines.get(1) ? lines.get(2) : lines.get(1);
        assertEquals(1, rank1.path("rank").asInt());
        assertEquals(2, rank0.path("world_size").asInt());
        assertEquals(rank0.path("job_id").asText(), rank1.path("job_id").asText());
        assertTrue(rank0.path("job_id").asText().matches("[0-9a-f]{12}"));
        assertNotEquals(rank0.path("run_id").asText(), rank1.path("run_id").asText());
        for (ObjectNode rank : List.of(rank0, rank1)) {
            JsonNode rankTrace = read(dir.resolve(rank.path("artifacts").get(0).path("path").asText()));
            assertEquals(rank.path("run_id").asText(), rankTrace.path("vantage.run_id").asText());
            assertEquals(rank.path("job_id").asText(), rankTrace.path("vantage.job_id").asText());
        }
    }

    @Test
    public void everyJsonFileTheRunsWroteValidatesAgainstItsSchema() throws Exception {
        for (ObjectNode line : lines()) {
            assertValid("run.schema.json", line, "runs.jsonl line " + line.path("run_id"));
        }
        List<Path> traces = new ArrayList<>(files(".trace.json.gz"));
        assertEquals(3, traces.size());
        traces.addAll(files(".pt.trace.json.gz"));
        assertEquals(4, traces.size());
        for (Path trace : traces) {
            assertValid("chrome-trace.schema.json", read(trace), trace.toString());
        }
        assertValid("memory-snapshot.schema.json", read(dir.resolve("snapshot.json")), "snapshot.json");
        List<Path> timelines = files(".memory-timeline.json");
        assertEquals(1, timelines.size());
        assertValid("memory-timeline.schema.json", read(timelines.get(0)), timelines.get(0).toString());

        LauncherProcess.Result listed = LauncherProcess.run(FULL, "runs", "--dir", dir.toString(), "--json");
        assertEquals(listed.err(), 0, listed.exitCode());
        JsonNode list = JSON.readTree(listed.out());
        assertEquals(3, list.size());
        assertValid("runs-list.schema.json", list, "vantage runs --json");
    }

    @Test
    public void theSchemasRejectDamagedCopiesOfRealOutput() throws Exception {
        ObjectNode line = lines().get(0).deepCopy();
        line.remove("run_id");
        assertFalse(errors("run.schema.json", line).isEmpty());
        ObjectNode badHash = lines().get(0).deepCopy();
        ((ObjectNode) badHash.path("artifacts").get(0)).put("sha256", "not-a-digest");
        assertTrue(errors("run.schema.json", badHash).toString().contains("/artifacts/0/sha256"));

        Path trace = files(".trace.json.gz").get(0);
        ObjectNode noDuration = (ObjectNode) read(trace);
        for (JsonNode e : noDuration.path("traceEvents")) {
            if (e.path("ph").asText().equals("X")) {
                ((ObjectNode) e).remove("dur");
                break;
            }
        }
        assertFalse(errors("chrome-trace.schema.json", noDuration).isEmpty());
        ObjectNode numberMetadata = (ObjectNode) read(trace);
        numberMetadata.put("vantage.run_id", 42);
        assertFalse(errors("chrome-trace.schema.json", numberMetadata).isEmpty());

        ObjectNode snapshot = (ObjectNode) read(dir.resolve("snapshot.json"));
        snapshot.remove("device_traces");
        assertFalse(errors("memory-snapshot.schema.json", snapshot).isEmpty());
        JsonNode timeline = read(files(".memory-timeline.json").get(0));
        ((com.fasterxml.jackson.databind.node.ArrayNode) timeline.get(1).get(0)).remove(0);
        assertFalse(errors("memory-timeline.schema.json", timeline).isEmpty());
    }

    @Test
    public void runsListsTheRegistryAndNamesACorruptLineWithoutLosingTheOthers() throws Exception {
        LauncherProcess.Result table = LauncherProcess.run(FULL, "runs", "--dir", dir.toString());
        assertEquals(table.err(), 0, table.exitCode());
        List<ObjectNode> lines = lines();
        for (ObjectNode line : lines) {
            assertTrue(table.out(), table.out().contains(line.path("run_id").asText()));
        }
        assertTrue(table.out(), table.out().contains("mlp-train") && table.out().contains("matmul"));

        Path damaged = tmp.newFolder("damaged").toPath();
        List<String> text = Files.readAllLines(dir.resolve("runs.jsonl"));
        text.add(1, text.get(1).substring(0, text.get(1).length() / 2));
        Files.write(damaged.resolve("runs.jsonl"), text, StandardCharsets.UTF_8);
        LauncherProcess.Result r = LauncherProcess.run(FULL, "runs", "--dir", damaged.toString());
        assertEquals(2, r.exitCode());
        assertTrue(r.err(), r.err().contains(damaged.resolve("runs.jsonl").toRealPath() + ":2: not JSON"));
        for (ObjectNode line : lines) {
            assertTrue(r.out(), r.out().contains(line.path("run_id").asText()));
        }

        LauncherProcess.Result missing = LauncherProcess.run(FULL, "runs", "--dir", dir.resolve("nope").toString());
        assertEquals(2, missing.exitCode());
        assertTrue(missing.err(), missing.err().contains(dir.resolve("nope") + ": no such directory"));
        LauncherProcess.Result empty = LauncherProcess.run(FULL, "runs", "--dir", damaged.getParent().toString());
        assertEquals(2, empty.exitCode());
        assertTrue(empty.err(), empty.err().contains("no runs.jsonl"));
    }
}
