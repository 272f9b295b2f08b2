package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * ONNX Runtime under the profiler, from the command line as a user runs it, on the models LangChain4j ships in
 * Maven Central (unpacked by the build into {@code target/models}): a profiled run whose trace holds ONNX Runtime's
 * own nodes one for one, bad input refused in one line, a served model captured window after window by attach, and
 * the bundle hot-deployed into a running minimal platform.
 */
public class OnnxRuntimeIT {

    private static final Path FULL = Distributions.home("full");
    private static final Path MINIMAL = Distributions.home("minimal");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PID = Pattern.compile(", pid (\\d+);");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Path model(String file) {
        Path p = Path.of(System.getProperty("vantage.test.models", "target/models"), file);
        assertTrue("the build unpacks " + p + " from LangChain4j's jar", Files.isRegularFile(p));
        return p;
    }

    private static Path miniLmQ() {
        return model("all-minilm-l6-v2-q.onnx");
    }

    private static JsonNode read(Path trace) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            return JSON.readTree(in);
        }
    }

    private static List<JsonNode> events(JsonNode trace, String cat) {
        List<JsonNode> list = new ArrayList<>();
        trace.get("traceEvents").forEach(e -> {
            if (cat.equals(e.path("cat").asText())) {
                list.add(e);
            }
        });
        return list;
    }

    private static long count(JsonNode trace, String name) {
        long n = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            n += name.equals(e.path("name").asText()) && "X".equals(e.path("ph").asText()) ? 1 : 0;
        }
        return n;
    }

    @Test
    public void aProfiledRunShowsOrtsOpTypesAndItsTraceHoldsOrtsOwnNodesOneForOne() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path ort = tmp.newFolder("ort").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, List.of("-Dvantage.ort.keepProfiles=true",
                "-Dvantage.ort.profileDir=" + ort), "run", "onnx", "--model", miniLmQ().toString(), "--profile",
                "--steps", "5", "--profile-dir", dir.toString(), "--profile-name", "minilm");
        assertEquals(r.err() + r.out(), 0, r.exitCode());
        String out = r.out();
        for (String expected : List.of("Self ORT", "ORT total", "DynamicQuantizeMatMul", "LayerNormalization",
                "MatMulIntegerToFloat", "ort::run", "Self ORT time total", "ort:0: CPUExecutionProvider, ONNX Runtime"
                + " 1.29.0", "onnx: 5 steps of all-minilm-l6-v2-q.onnx (input_ids [1, 128] long")) {
            assertTrue("the output shows " + expected + ":\n" + out, out.contains(expected));
        }
        JsonNode trace = read(dir.resolve("minilm.trace.json.gz"));
        long base = trace.get("baseTimeNanoseconds").asLong();
        assertEquals("steps 1 to 3 of cache-dit's schedule", 3, count(trace, "ort::run"));
        String[] files = trace.get("vantage.device.ort.ort_profiles").asText().split(", ");
        String[] starts = trace.get("vantage.device.ort.ort_profile_starts_ns").asText().split(", ");
        List<long[]> theirs = new ArrayList<>();
        List<String> theirOps = new ArrayList<>();
        for (int f = 0; f < files.length; f++) {
            assertTrue(files[f] + " is in " + ort, Path.of(files[f]).startsWith(ort));
            long origin = Long.parseLong(starts[f]);
            for (JsonNode e : JSON.readTree(Path.of(files[f]).toFile())) {
                if ("Node".equals(e.get("cat").asText()) && e.get("name").asText().endsWith("_kernel_time")) {
                    theirs.add(new long[] {e.get("tid").asLong(), origin + e.get("ts").asLong() * 1000,
                            e.get("dur").asLong() * 1000, theirOps.size()});
                    theirOps.add(e.get("args").get("op_name").asText());
                }
            }
        }
        List<long[]> ours = new ArrayList<>();
        List<String> ourOps = new ArrayList<>();
        for (JsonNode k : events(trace, "kernel")) {
            ours.add(new long[] {k.get("tid").asLong(), base + Math.round(k.get("ts").asDouble() * 1000),
                    Math.round(k.get("dur").asDouble() * 1000), ourOps.size()});
            ourOps.add(k.get("name").asText());
        }
        assertEquals("3 runs of 162 nodes", 3 * 162, theirs.size());
        assertEquals("one trace event per ONNX Runtime node", theirs.size(), ours.size());
        Comparator<long[]> order = Comparator.<long[]>comparingLong(a -> a[0]).thenComparingLong(a -> a[1]);
        theirs.sort(order);
        ours.sort(order);
        long worst = 0;
        for (int i = 0; i < ours.size(); i++) {
            assertEquals(theirOps.get((int) theirs.get(i)[3]), ourOps.get((int) ours.get(i)[3]));
            assertEquals(theirs.get(i)[0], ours.get(i)[0]);
            worst = Math.max(worst, Math.max(Math.abs(theirs.get(i)[1] - ours.get(i)[1]),
                    Math.abs(theirs.get(i)[2] - ours.get(i)[2])));
        }
        assertTrue("every node within 1 us of ONNX Runtime's own file; the worst is " + worst + " ns",
                worst <= 1000);
    }

    @Test
    public void theFullPrecisionMiniLmRunsWithTheShapesAsked() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "onnx", "--model",
                model("all-minilm-l6-v2.onnx").toString(), "--profile", "--steps", "4", "--batch-size", "2",
                "--seq-len", "32", "--threads", "2", "--profile-dir", dir.toString(), "--profile-name", "full",
                "--profile-record-shapes", "--profile-activities", "CPU", "ORT", "MEM");
        assertEquals(r.err() + r.out(), 0, r.exitCode());
        assertTrue(r.out(), r.out().contains("(input_ids [2, 32] long, attention_mask [2, 32] long,"
                + " token_type_ids [2, 32] long) -> last_hidden_state [2, 32, 384] float"));
        assertTrue(r.out(), r.out().contains("ORT Mem"));
        JsonNode trace = read(dir.resolve("full.trace.json.gz"));
        boolean shapes = false;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("ort::run".equals(e.path("name").asText())) {
                assertEquals("[[2,32],[2,32],[2,32]]", e.get("args").get("Input Dims").toString());
                shapes = true;
            }
        }
        assertTrue(shapes);
        long memory = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            memory += "[memory]".equals(e.path("name").asText()) ? 1 : 0;
        }
        assertTrue("ONNX Runtime's per-node memory in the trace", memory > 0);
        // the run's line says which model ran, on which inputs
        JsonNode line = new ObjectMapper().readTree(Files.readAllLines(dir.resolve("runs.jsonl")).get(0));
        assertEquals(model("all-minilm-l6-v2.onnx").toString(), line.path("configuration").path("model").asText());
        assertEquals(32, line.path("configuration").path("seq_len").asInt());
    }

    @Test
    public void aBadModelOrShapeIsRefusedInOneLineBeforeAnyWork() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path missing = tmp.getRoot().toPath().resolve("missing.onnx");
        assertEquals("vantage: --model " + missing + ": no such file", LauncherProcess.refused(FULL, "run", "onnx",
                "--model", missing.toString(), "--profile", "--profile-dir", dir.toString()));
        Path garbage = tmp.newFile("garbage.onnx").toPath();
        Files.writeString(garbage, "not a model", StandardCharsets.UTF_8);
        assertTrue(LauncherProcess.refused(FULL, "run", "onnx", "--model", garbage.toString(), "--profile",
                "--profile-dir", dir.toString()).startsWith("vantage: --model " + garbage
                + ": ONNX Runtime cannot load it: "));
        assertEquals("vantage: --input input_ids=1x128x7: the model's input input_ids has 2 dimensions ([?, ?]"
                + " long), not 3", LauncherProcess.refused(FULL, "run", "onnx", "--model", miniLmQ().toString(),
                "--input", "input_ids=1x128x7", "--profile", "--profile-dir", dir.toString()));
        // a value that is no shape at all is refused by the command tree, before the platform boots
        String notAShape = LauncherProcess.refused(FULL, "run", "onnx", "--model", miniLmQ().toString(), "--input",
                "input_ids=1xq");
        assertTrue(notAShape, notAShape.startsWith("vantage: run: ") && notAShape.contains("--input")
                && notAShape.contains("'input_ids=1xq' is not NAME=DIMS such as input_ids=1x128"));
        assertEquals("vantage: onnx needs --model FILE.onnx", LauncherProcess.refused(FULL, "run", "onnx"));
        try (Stream<Path> written = Files.list(dir)) {
            assertEquals("nothing written", List.of(), written.toList());
        }
        // serve refuses it in the same line before serving (a refused serve keeps its platform up, as for any of
        // serve's usage errors)
        Path deploy = tmp.newFolder("deploy").toPath();
        Files.setPosixFilePermissions(deploy, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--workload", "onnx", "--model",
                missing.toString(), "--deploy-dir", deploy.toString())) {
            serve.awaitLine("err: vantage: --model " + missing + ": no such file");
            assertFalse(serve.output(), serve.output().contains("serving onnx"));
        }
    }

    @Test
    public void aServedModelIsCapturedByAttachWindowAfterWindowAcrossProfilingSessions() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Files.setPosixFilePermissions(deploy, PosixFilePermissions.fromString("rwxr-xr-x"));
        // small profiling sessions, so that a three-second window goes through several of them
        Files.writeString(deploy.resolve("dev.vantage.device.onnxruntime.internal.OrtRuntime.cfg"),
                "eventsPerSession=5000\nfirstSessionRuns=10\n", StandardCharsets.UTF_8);
        Path out = tmp.newFolder("traces").toPath();
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--workload", "onnx", "--model",
                miniLmQ().toString(), "--seq-len", "16", "--deploy-dir", deploy.toString())) {
            Matcher m = PID.matcher(serve.awaitLine("serving onnx on cpu:0"));
            assertTrue(m.find());
            String pid = m.group(1);
            LauncherProcess.Result r = LauncherProcess.run(FULL, "profile", pid, "start", "--duration", "3s",
                    "--dir", out.toString(), "--name", "long");
            assertEquals(r.err(), 0, r.exitCode());
            serve.awaitLine("written: " + out.resolve("long.trace.json.gz"));
            JsonNode trace = read(out.resolve("long.trace.json.gz"));
            long runs = count(trace, "ort::run");
            assertTrue("runs in three seconds: " + runs, runs > 100);
            assertTrue(trace.get("vantage.device.ort.rotations").asInt() >= 2);
            assertEquals(Long.toString(runs), trace.get("vantage.device.ort.runs").asText());
            assertEquals(Long.toString(runs), trace.get("vantage.device.ort.model_runs").asText());
            assertEquals("every run's nodes, across the sessions", runs * 162, events(trace, "kernel").size());
            assertFalse(trace.has("vantage.device.ort.unmatched"));
            assertFalse(trace.has("vantage.device.ort.errors"));
            // runs at the window's edges (the serving thread runs while the capture starts and stops) are counted
            // out of the window, as Kineto counts out-of-range records, and nothing else is dropped
            long outside = Long.parseLong(trace.get("vantage.device.ort.out_of_window_records").asText()
                    .split(" ")[0]);
            assertEquals(outside, trace.path("vantage.dropped_device_records").asLong());
            assertEquals(0, outside % 163);

            // and the next window, as complete
            r = LauncherProcess.run(FULL, "profile", pid, "start", "--iterations", "5", "--dir", out.toString(),
                    "--name", "next");
            assertEquals(r.err(), 0, r.exitCode());
            serve.awaitLine("written: " + out.resolve("next.trace.json.gz"));
            JsonNode next = read(out.resolve("next.trace.json.gz"));
            assertEquals(5, count(next, "ort::run"));
            assertEquals(5 * 162, events(next, "kernel").size());
            Map<Long, Integer> perRun = new HashMap<>();
            for (JsonNode k : events(next, "kernel")) {
                perRun.merge(k.get("args").get("External id").asLong(), 1, Integer::sum);
            }
            assertEquals(5, perRun.size());
        }
    }

    @Test
    public void theOrtBundleHotDeploysIntoARunningMinimalPlatform() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Files.setPosixFilePermissions(deploy, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = tmp.newFolder("traces").toPath();
        try (LauncherProcess shell = LauncherProcess.start(MINIMAL, "shell", "--deploy-dir", deploy.toString())) {
            shell.awaitLine("backend registered: cpu");
            Files.copy(Distributions.fullBundle("exporter-chrome-"), deploy.resolve("exporter-chrome.jar"),
                    StandardCopyOption.REPLACE_EXISTING);
            shell.awaitLine("exporter registered: chrome");
            Path jar = deploy.resolve("device-onnxruntime.jar");
            Files.copy(Distributions.fullBundle("device-onnxruntime-"), jar, StandardCopyOption.REPLACE_EXISTING);
            shell.awaitLine("device registered: ort (dev.vantage.device.onnxruntime "
                    + System.getProperty("vantage.device-onnxruntime.version") + ")");
            shell.send("vantage:run onnx --model " + miniLmQ() + " --seq-len 16 --steps 4 --profile --profile-dir "
                    + out + " --profile-name deployed");
            shell.awaitLine("trace written: " + out.resolve("deployed.trace.json.gz"));
            JsonNode trace = read(out.resolve("deployed.trace.json.gz"));
            assertEquals(3, count(trace, "ort::run"));
            assertEquals(3 * 162, events(trace, "kernel").size());
            Files.delete(jar);
            shell.awaitLine("device unregistered: ort");
            shell.send("stop 0");
        }
    }
}
