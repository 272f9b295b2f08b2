package dev.vantage.itests;

import static dev.vantage.itests.AgentApps.assertOrtProcess;
import static dev.vantage.itests.AgentApps.assertOrtRuns;
import static dev.vantage.itests.AgentApps.category;
import static dev.vantage.itests.AgentApps.countWithin;
import static dev.vantage.itests.AgentApps.named;
import static dev.vantage.itests.AgentApps.onlyTrace;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The agent in applications that have never heard of Vantage, each started in a JVM of its own as its user starts it
 * ({@link AppProcess}): the LangChain4j application (ONNX Runtime 1.20.0, DJL's tokenizer) and the one that calls
 * ONNX Runtime 1.16.3 directly with its own Jackson, protobuf and Felix. Each is captured from start-up and on
 * demand; the traces are read back with Jackson and compared with ONNX Runtime's own profile of the same runs, node
 * for node, and the applications' output must be what it is without the agent. Run once per JDK by the subclasses.
 */
public abstract class AgentTests {

    private static final Path FULL = Distributions.home("full");
    private static final Map<String, String> PLAIN = new ConcurrentHashMap<>();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The {@code bin/java} the applications run on. */
    abstract Path java() throws Exception;

    static Path model() {
        return Paths.get(System.getProperty("vantage.test.models", "target/models"), "all-minilm-l6-v2-q.onnx");
    }

    /** What an application prints without the agent, on the same JVM (run once per arguments). */
    String plain(Path jar, String... args) throws Exception {
        String key = java() + " " + jar + " " + String.join(" ", args);
        String known = PLAIN.get(key);
        if (known != null) {
            return known;
        }
        try (AppProcess p = AppProcess.start(java(), List.of(), jar, args)) {
            assertEquals(p.err(), 0, p.awaitExit(120));
            // the agent's lines start with its name; a JDK's warnings may name paths that contain "vantage"
            assertFalse("the application alone says nothing of the agent", p.err().lines()
                    .anyMatch(l -> l.startsWith("vantage-agent")));
            PLAIN.put(key, p.out());
            return p.out();
        }
    }

    /**
     * Starts ONNX Runtime 1.16 called directly, with the agent given {@code options}, serving until {@code stop}
     * exists; returns once it serves.
     */
    private AppProcess servingOrt(String options, Path stop) throws Exception {
        AppProcess app = AppProcess.start(java(), List.of(agent(options)), AppProcess.ORT_DIRECT, model().toString(),
                "--serve-until", stop.toString());
        try {
            app.awaitErrLine("serving until");
            return app;
        } catch (InterruptedException | RuntimeException | Error e) {
            app.close();
            throw e;
        }
    }

    private static String agent(String options) {
        return "-javaagent:" + AppProcess.AGENT + (options.isEmpty() ? "" : "=" + options);
    }

    /** Options that keep ONNX Runtime's own profiles of the profiling sessions, in a folder of the test's. */
    private List<String> keepingOrtProfiles(String agentOptions) throws Exception {
        return List.of(agent(agentOptions), "-Dvantage.ort.keepProfiles=true",
                "-Dvantage.ort.profileDir=" + tmp.newFolder("ort-profiles"));
    }

    private static LauncherProcess.Result profile(long pid, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("profile", Long.toString(pid)));
        all.addAll(List.of(args));
        return LauncherProcess.run(FULL, all.toArray(new String[0]));
    }

    private static Set<String> names(List<JsonNode> events) {
        Set<String> names = new TreeSet<>();
        events.forEach(e -> names.add(e.get("name").asText()));
        return names;
    }

    @Test
    public void langChain4jFromStartUpShowsEmbedsTheirTokenizationTheirRunsAndOrtsOwnNodes() throws Exception {
        Path traces = tmp.newFolder("traces").toPath();
        try (AppProcess app = AppProcess.start(java(), keepingOrtProfiles("start=startup,dir=" + traces
                + ",name=embed"), AppProcess.EMBEDDINGS, "--rounds", "2")) {
            assertEquals(app.err(), 0, app.awaitExit(180));
            assertEquals("the application's output", plain(AppProcess.EMBEDDINGS, "--rounds", "2"), app.out());
            assertTrue(app.err(), app.err().contains("embed calls: 10"));
            // the table, on standard error: the annotations, the runs and ONNX Runtime's op types
            String err = app.err();
            for (String row : List.of("EmbeddingModel.embed", "ort::run", "DynamicQuantizeMatMul", "LayerNormalization",
                    "ONNX Runtime 1.20.0", "vantage-agent: trace written: " + traces.resolve("embed.trace.json.gz"))) {
                assertTrue(row + " in\n" + err, err.contains(row));
            }
        }
        JsonNode trace = onlyTrace(traces);
        // vantage run's schedule: a warm-up step, then steps 1 to 3; a step is an embed
        List<JsonNode> embeds = named(trace, "EmbeddingModel.embed");
        List<JsonNode> runs = named(trace, "ort::run");
        assertEquals(3, embeds.size());
        assertEquals("one ort::run per embed, inside it", 3, countWithin(runs, embeds));
        assertEquals(3, runs.size());
        assertTrue("the tokenizer inside each embed", countWithin(named(trace, "HuggingFaceTokenizer.encode"), embeds)
                >= 3);
        for (int step = 1; step <= 3; step++) {
            assertEquals(1, named(trace, "ProfilerStep#" + step).size());
        }
        for (JsonNode r : runs) {
            assertEquals("cpu_op", r.get("cat").asText());
            assertEquals(3, r.get("args").get("Input Dims").size());
            assertEquals("long", r.get("args").get("Input type").get(0).asText());
            assertTrue(r.get("args").get("ORT session").asText().contains("MB from"));
        }
        // the application's threads are rows with their names, as in Vantage's own runs
        Map<Long, String> threads = new java.util.HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("M".equals(e.path("ph").asText()) && "thread_name".equals(e.path("name").asText())) {
                threads.put(e.path("tid").asLong(), e.path("args").path("name").asText());
            }
        }
        for (JsonNode e : embeds) {
            assertFalse("a named row for the thread of " + e, threads.getOrDefault(e.path("tid").asLong(), "")
                    .isEmpty());
        }
        assertOrtRuns(trace, 3);
        assertTrue(names(category(trace, "kernel")).containsAll(Set.of("DynamicQuantizeMatMul", "LayerNormalization",
                "Gather")));
        assertOrtProcess(trace, "1.20.0");
    }

    @Test
    public void langChain4jOnDemandWhileItServesCapturesWholeStepsNodeForNode() throws Exception {
        Path traces = tmp.newFolder("traces").toPath();
        Path stop = tmp.getRoot().toPath().resolve("stop");
        try (AppProcess app = AppProcess.start(java(), keepingOrtProfiles(""), AppProcess.EMBEDDINGS,
                "--serve-until", stop.toString())) {
            app.awaitErrLine("vantage-agent: loaded in process " + app.pid());
            LauncherProcess.Result r = profile(app.pid(), "start", "--iterations", "8", "--dir", traces.toString());
            assertEquals(r.err(), 0, r.exitCode());
            app.awaitErrLine(") written: ");
            assertTrue(profile(app.pid(), "status").out().contains("last capture: " + traces));
            Files.createFile(stop);
            assertEquals(app.err(), 0, app.awaitExit(120));
            assertEquals(plain(AppProcess.EMBEDDINGS), app.out());
        }
        JsonNode trace = onlyTrace(traces);
        assertEquals("attach", trace.get("vantage.trigger").asText());
        List<JsonNode> embeds = named(trace, "EmbeddingModel.embed");
        List<JsonNode> runs = named(trace, "ort::run");
        assertEquals(8, embeds.size());
        assertEquals(8, runs.size());
        assertEquals(8, countWithin(runs, embeds));
        assertOrtRuns(trace, 8);
    }

    @Test
    public void onnxRuntime116CalledDirectlyFromStartUpWithNamedStepsAndItsOwnLibrariesUnchanged() throws Exception {
        Path traces = tmp.newFolder("traces").toPath();
        // a collection after each request: the JVM's pauses are on the trace as in Vantage's own runs
        String[] args = {model().toString(), "--requests", "6", "--runs-per-request", "2", "--gc-per-request"};
        try (AppProcess app = AppProcess.start(java(), keepingOrtProfiles("start=startup,dir=" + traces
                + ",step=dev.vantage.testapps.ortdirect.OrtDirectApp#request"), AppProcess.ORT_DIRECT, args)) {
            assertEquals(app.err(), 0, app.awaitExit(180));
            // its own Jackson 2.17, protobuf 4 and Felix 7.0.3 work as without the agent
            String out = app.out();
            assertTrue(out, out.contains("\"jackson\":\"2.17.2\"") && out.contains("runtime 4")
                    && out.contains("\"felix\":\"7.0.3 active\""));
            assertEquals(plain(AppProcess.ORT_DIRECT, args), out);
            assertTrue(app.err().contains("runs: 12"));
        }
        JsonNode trace = onlyTrace(traces);
        List<JsonNode> requests = named(trace, "dev.vantage.testapps.ortdirect.OrtDirectApp#request");
        List<JsonNode> runs = named(trace, "ort::run");
        assertEquals("steps 1 to 3 of the six requests", 3, requests.size());
        List<JsonNode> pauses = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && "gc".equals(e.path("cat").asText())) {
                pauses.add(e);
            }
        }
        assertTrue("the JVM's pauses of the requests' collections: " + pauses, pauses.stream()
                .anyMatch(p -> p.path("name").asText().startsWith("GC: ")
                        && p.path("name").asText().contains("(System.gc())")));
        assertEquals(6, runs.size());
        assertEquals(6, countWithin(runs, requests));
        for (int step = 1; step <= 3; step++) {
            assertEquals(1, named(trace, "ProfilerStep#" + step).size());
        }
        assertEquals("[[1, 16], [1, 16], [1, 16]]", runs.get(0).get("args").get("Input Dims").toString()
                .replace(",", ", ").replace(",  ", ", "));
        assertEquals("all-minilm-l6-v2-q.onnx", runs.get(0).get("args").get("ORT session").asText());
        assertOrtRuns(trace, 6);
        assertOrtProcess(trace, "1.16.3");
    }

    @Test
    public void onnxRuntime116OnDemandForADurationWhileItServes() throws Exception {
        Path traces = tmp.newFolder("traces").toPath();
        Path stop = tmp.getRoot().toPath().resolve("stop");
        try (AppProcess app = servingOrt("", stop)) {
            LauncherProcess.Result r = profile(app.pid(), "start", "--duration", "2s", "--dir", traces.toString());
            assertEquals(r.err(), 0, r.exitCode());
            assertTrue(r.out(), r.out().contains("2000 ms of [CPU, ORT]"));
            app.awaitErrLine(") written: ");
            Files.createFile(stop);
            assertEquals(app.err(), 0, app.awaitExit(120));
            assertEquals(plain(AppProcess.ORT_DIRECT, model().toString(), "--requests", "1"), app.out());
        }
        JsonNode trace = onlyTrace(traces);
        List<JsonNode> runs = named(trace, "ort::run");
        assertTrue("a two-second window of runs of a few ms: " + runs.size(), runs.size() > 20);
        // the device's count of the window's runs; a run at the timer's end of the window may be counted without
        // its op, whose start the window no longer holds
        long deviceRuns = Long.parseLong(trace.get("vantage.device.ort.runs").asText());
        assertTrue(deviceRuns + " runs against " + runs.size() + " ops", Math.abs(deviceRuns - runs.size()) <= 1);
        Set<Long> runIds = new TreeSet<>();
        runs.forEach(run -> runIds.add(run.get("args").get("External id").asLong()));
        List<JsonNode> kernels = category(trace, "kernel");
        assertTrue(kernels.size() > runs.size() * 100);
        // a run cut by the window's start or end may have its nodes without its op: those nodes carry no External
        // id, and start before the window's first run or after its last one began
        double firstRun = runs.stream().mapToDouble(run -> run.get("ts").asDouble()).min().getAsDouble();
        double lastRun = runs.stream().mapToDouble(run -> run.get("ts").asDouble()).max().getAsDouble();
        for (JsonNode k : kernels) {
            JsonNode id = k.get("args").get("External id");
            if (id == null) {
                double at = k.get("ts").asDouble();
                assertTrue("a node without its run, inside the window: " + k, at < firstRun || at > lastRun);
            } else {
                assertTrue("every node links to the ort::run that ran it: " + k, runIds.contains(id.asLong()));
            }
        }
    }

    @Test
    public void aMisspelledOptionIsOneLineAndTheApplicationRunsUnprofiled() throws Exception {
        Path traces = tmp.getRoot().toPath().resolve("traces");
        String[] args = {model().toString(), "--requests", "2"};
        try (AppProcess app = AppProcess.start(java(), List.of(agent("strat=startup,dir=" + traces)),
                AppProcess.ORT_DIRECT, args)) {
            assertEquals(0, app.awaitExit(120));
            assertEquals(plain(AppProcess.ORT_DIRECT, args), app.out());
            List<String> lines = app.err().lines().filter(l -> l.startsWith("vantage-agent")).toList();
            assertEquals(List.of("vantage-agent: unknown option 'strat' (did you mean 'start'?); known: start, step,"
                    + " deploy-dir, duration, dir, name, activities, export, record-shapes, with-stack, with-flops,"
                    + " wait, warmup, active, repeat, skip-first, sort-by, row-limit, percentiles, max-events; the"
                    + " application runs unprofiled"), lines);
        }
        assertFalse(Files.exists(traces));
    }

    @Test
    public void anApplicationThatExitsBeforeThePlatformIsUpIsToldNothingWasRecorded() throws Exception {
        // no run: the application creates its session and exits before the platform has booted (a second); the
        // agent said nothing at all
        Path traces = tmp.getRoot().toPath().resolve("traces");
        String[] args = {model().toString(), "--requests", "0"};
        try (AppProcess app = AppProcess.start(java(), List.of(agent("start=startup,dir=" + traces)),
                AppProcess.ORT_DIRECT, args)) {
            assertEquals(app.err(), 0, app.awaitExit(120));
            assertEquals(plain(AppProcess.ORT_DIRECT, args), app.out());
            List<String> lines = app.err().lines().filter(l -> l.startsWith("vantage-agent")).toList();
            assertFalse("the agent says what became of the capture", lines.isEmpty());
            // on a machine so loaded that the platform came up first, the capture ends with the application and says so
            String last = lines.stream().anyMatch(l -> l.startsWith("vantage-agent: platform up"))
                    ? "vantage-agent: no trace was written: the capture recorded no step (no embed, predict or ONNX"
                            + " Runtime run in the schedule's recorded steps; step=Class#method names others)"
                    : "vantage-agent: the application exits before the platform is up: the start-up capture recorded"
                            + " nothing (the first call it records, an ONNX Runtime run or a step= method, waits for"
                            + " the platform)";
            assertEquals(lines.toString(), last, lines.get(lines.size() - 1));
        }
        try (var written = Files.exists(traces) ? Files.list(traces) : java.util.stream.Stream.<Path>empty()) {
            assertEquals(0, written.count());
        }
    }

    @Test
    public void anExporterThatFailsEndsTheCaptureAndTheApplicationGoesOn() throws Exception {
        Path traces = tmp.newFolder("traces").toPath();
        Path stop = tmp.getRoot().toPath().resolve("stop");
        try (AppProcess app = AppProcess.start(java(), List.of(agent("start=startup,active=1000000,dir=" + traces)),
                AppProcess.ORT_DIRECT, model().toString(), "--serve-until", stop.toString())) {
            app.awaitErrLine("vantage-agent: platform up");
            // the directory checked at start-up is a file by the time the capture is written, at exit
            try (var files = Files.walk(traces)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
            Files.writeString(traces, "not a directory");
            Files.createFile(stop);
            assertEquals(app.err(), 0, app.awaitExit(120));
            assertEquals(plain(AppProcess.ORT_DIRECT, model().toString(), "--requests", "1"), app.out());
            String failed = app.awaitErrLine("vantage-agent: writing chrome to " + traces);
            assertTrue(failed, failed.endsWith("; the capture ends, the application goes on"));
        }
    }

    @Test
    public void loadedIntoARunningJvmWithTheJdksOwnWarningPassedOn() throws Exception {
        Path traces = tmp.newFolder("traces").toPath();
        Path stop = tmp.getRoot().toPath().resolve("stop");
        int feature = AppProcess.feature(java());
        try (AppProcess app = AppProcess.start(java(), List.of(), AppProcess.ORT_DIRECT, model().toString(),
                "--serve-until", stop.toString())) {
            // serving: its session was created before the agent, so its runs are ort::run without nodes
            app.awaitErrLine("serving until");
            LauncherProcess.Result load = AppProcess.load(java(), app.pid(), "start=startup,duration=2s,dir="
                    + traces);
            assertEquals(load.err(), 0, load.exitCode());
            assertTrue(load.out(), load.out().contains("vantage-agent: loaded into process " + app.pid()));
            app.awaitErrLine("vantage-agent: trace written: " + traces);
            Files.createFile(stop);
            assertEquals(app.err(), 0, app.awaitExit(120));
            assertEquals("the JVM's own warning (JEP 451), not hidden", feature >= 21,
                    app.err().contains("WARNING: A Java agent has been loaded dynamically"));
            assertEquals("and said by the client", feature >= 21, load.err().contains("JEP 451"));
        }
        JsonNode trace = onlyTrace(traces);
        assertTrue(named(trace, "ort::run").size() > 10);
        assertEquals("a session created before the agent", named(trace, "ort::run").get(0).get("args")
                .get("ORT session").asText());
    }

    @Test
    public void anExporterHotDeployedIntoTheAgentsDeployDirectoryWritesACapture() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Path traces = tmp.newFolder("traces").toPath();
        Path stop = tmp.getRoot().toPath().resolve("stop");
        try (AppProcess app = servingOrt("deploy-dir=" + deploy, stop)) {
            // parquet is not in the agent: deployed while the application runs, it boots the platform and installs
            Path parquet = Distributions.fullBundle("exporter-parquet-");
            Files.copy(parquet, deploy.resolve(parquet.getFileName()));
            app.awaitErrLine("vantage-agent: platform up");
            LauncherProcess.Result r;
            int tries = 0;
            do {
                // FileInstall starts the bundle on its next poll, half a second at most
                r = profile(app.pid(), "start", "--iterations", "3", "--export", "parquet", "--dir", traces.toString());
            } while (r.exitCode() == 2 && r.err().contains("no exporter writes parquet") && ++tries < 30);
            assertEquals(r.err(), 0, r.exitCode());
            app.awaitErrLine(") written: ");
            Files.createFile(stop);
            assertEquals(app.err(), 0, app.awaitExit(120));
        }
        try (var s = Files.list(traces)) {
            assertTrue("the parquet exporter's tables", s.anyMatch(p -> Files.isDirectory(p)
                    && p.getFileName().toString().startsWith("ondemand-")));
        }
    }

    @Test
    public void aCfgDroppedIntoTheDeployDirectoryStartsACapture() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Path traces = tmp.newFolder("traces").toPath();
        Path stop = tmp.getRoot().toPath().resolve("stop");
        try (AppProcess app = servingOrt("deploy-dir=" + deploy, stop)) {
            Files.writeString(deploy.resolve("dev.vantage.profiler.ondemand.cfg"), "iterations=5\ndir=" + traces
                    + "\nname=dropped\n");
            app.awaitErrLine(") written: ");
            Files.createFile(stop);
            assertEquals(app.err(), 0, app.awaitExit(120));
        }
        JsonNode trace = onlyTrace(traces);
        assertEquals("config", trace.get("vantage.trigger").asText());
        assertEquals(5, named(trace, "ort::run").size());
    }
}
