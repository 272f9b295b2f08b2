package dev.vantage.itests;

import static dev.vantage.itests.LauncherProcess.refused;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
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

import net.razorvine.pickle.Unpickler;

/**
 * Device memory on the command line, as a user meets it: a run too large for a capped device ends in one
 * torch-style line with exit code 1, an {@code [OutOfMemory]} event in its trace and a snapshot whose {@code oom}
 * entry names the request; {@code MEM} on every accelerator gives {@code [memory]} events whose running sums match
 * the allocator's totals, memory columns, and cache-dit's snapshot and summary files, and torch's memory timeline by
 * category; bad memory flags are refused.
 */
public class MemoryIT {

    private static final Path FULL = Distributions.home("full");
    private static final Pattern REQUEST = Pattern.compile("Tried to allocate [0-9.]+ [KMG]iB \\((\\d+) bytes\\)");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The worker files TensorBoard's plugin takes under its logdir ({@code torch_tb_profiler}'s WORKER_PATTERN). */
    private static final Pattern TB_WORKER = Pattern.compile("^(.*?)(\\.\\d+)?\\.pt\\.trace\\.json(?:\\.gz)?$");

    private static JsonNode trace(Path dir) throws Exception {
        Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(p -> p.toString().endsWith(".trace.json.gz")).findFirst().orElseThrow();
        }
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return new ObjectMapper().readTree(in);
        }
    }

    @Test
    public void aRunTooLargeForItsCappedDeviceEndsInOneLineWithATraceAndASnapshot() throws Exception {
        for (String[] device : new String[][] {{"npu", "NPU"}, {"spyre", "SPYRE"}, {"mps", "MPS"}}) {
            Path dir = tmp.newFolder(device[0]).toPath();
            Path snapshot = dir.resolve("oom.pickle");
            LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--device", device[0],
                    "--steps", "4", "--device-memory", "1m", "--memory-snapshot", snapshot.toString(), "--profile",
                    "--profile-dir", dir.toString(), "--profile-activities", "CPU", device[1], "MEM",
                    "--profile-warmup", "0");
            assertEquals(r.err(), 1, r.exitCode());
            List<String> lines = r.err().lines().filter(l -> l.contains("out of memory")).toList();
            assertEquals(r.err(), 1, lines.size());
            String line = lines.get(0);
            assertTrue(line, line.startsWith("vantage: " + device[0] + ":0 out of memory. Tried to allocate "));
            assertTrue(line, line.contains("limited to 1024.00 KiB for this process"));
            assertFalse("no stack trace on the terminal: " + r.err(), r.err().contains("\tat ")
                    || r.err().contains("Exception"));
            Matcher m = REQUEST.matcher(line);
            assertTrue(line, m.find());
            long requested = Long.parseLong(m.group(1));

            // the trace of the failing run holds the failure
            JsonNode oomEvent = null;
            for (JsonNode e : trace(dir).get("traceEvents")) {
                if (e.path("name").asText().equals("[OutOfMemory]")) {
                    oomEvent = e;
                }
            }
            assertNotNull(device[0] + ": no [OutOfMemory] event", oomEvent);
            assertEquals(requested, oomEvent.get("args").get("Bytes").asLong());
            assertEquals(0, oomEvent.get("args").get("Device Id").asInt());

            // and the snapshot's oom entry names the request, as PyTorch's _memory_viz.py reads it
            Object read;
            try (InputStream in = Files.newInputStream(snapshot)) {
                read = new Unpickler().load(in);
            }
            Map<?, ?> root = (Map<?, ?>) read;
            List<?> traces = (List<?>) ((List<?>) root.get("device_traces")).get(0);
            Map<?, ?> oom = traces.stream().map(e -> (Map<?, ?>) e).filter(e -> "oom".equals(e.get("action")))
                    .findFirst().orElseThrow(() -> new AssertionError(device[0] + ": no oom entry"));
            assertEquals(requested, ((Number) oom.get("size")).longValue());
            assertTrue(((Number) oom.get("device_free")).longValue() <= 1L << 20);
        }
    }

    @Test
    public void memOnEveryAcceleratorGivesEventsWhoseRunningSumsMatchTheAllocator() throws Exception {
        for (String[] device : new String[][] {{"npu", "NPU"}, {"spyre", "SPYRE"}, {"mps", "MPS"}}) {
            Path dir = tmp.newFolder("mem-" + device[0]).toPath();
            LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--device", device[0],
                    "--steps", "5", "--profile", "--profile-dir", dir.toString(), "--profile-name", "m",
                    "--profile-activities", "CPU", device[1], "MEM", "--profile-sort-by",
                    "self_" + device[0] + "_memory_usage", "--track-memory");
            assertEquals(r.err(), 0, r.exitCode());
            assertTrue(r.out(), r.out().contains("Self " + device[1] + " Mem"));
            assertTrue(r.out(), r.out().contains("peak memory: " + device[0] + ":0 allocated "));
            long events = 0;
            Long total = null;
            for (JsonNode e : trace(dir).get("traceEvents")) {
                if (!e.path("name").asText().equals("[memory]")
                        || e.get("args").get("Device Type").asInt() == 0) {
                    continue;
                }
                JsonNode a = e.get("args");
                long after = a.get("Total Allocated").asLong();
                if (total != null) {
                    assertEquals(device[0] + " event " + events, total + a.get("Bytes").asLong(), after);
                }
                assertTrue(after <= a.get("Total Reserved").asLong());
                total = after;
                events++;
            }
            assertTrue(device[0] + ": " + events + " device [memory] events", events > 20);
            // cache-dit's files for MEM on an accelerator: <name>-rank0-memory-<time>.pickle and .txt
            try (Stream<Path> files = Files.list(dir)) {
                List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
                assertTrue(names + "\n" + r.out(),
                        names.stream().anyMatch(n -> n.matches("m-rank0-memory-\\d+\\.pickle")));
                Path summary = dir.resolve(names.stream().filter(n -> n.matches("m-rank0-memory-\\d+\\.txt"))
                        .findFirst().orElseThrow());
                String text = Files.readString(summary);
                assertTrue(text, text.contains("Vantage " + device[1] + " memory summary, device ID 0"));
                assertTrue(text, text.lines().allMatch(l -> l.length() == 77));
            }
        }
    }

    @Test
    public void aHeapTooSmallForTheAnalysisEndsInOneLineNotAHangOrAStackTrace() throws Exception {
        Path dir = tmp.newFolder("small-heap").toPath();
        // 1,500 steps of CPU and MEM need about 64 MB of heap since tensors free at their last use (their events
        // live off the heap); half of that cannot hold them
        LauncherProcess.Result r = LauncherProcess.run(FULL, List.of("-Xmx32m"), "run", "mlp-train", "--steps",
                "1500", "--profile", "--profile-dir", dir.toString(), "--profile-activities", "CPU", "MEM",
                "--profile-active", "1500");
        assertEquals(r.err(), 1, r.exitCode());
        assertEquals("vantage: the JVM ran out of memory (Java heap space); give it more with VANTAGE_JAVA_OPTS, such"
                + " as -Xmx4g or -XX:MaxDirectMemorySize=2g, or record fewer steps (--profile-active) or events"
                + " (--max-events)", r.err().strip());
    }

    @Test
    public void badMemoryFlagsAreRefusedBeforeAnyWork() throws Exception {
        Path dir = tmp.getRoot().toPath();
        assertEquals("vantage: run: '--device-memory': 'lots' is not a size such as 256m or 2g; see 'vantage run"
                + " --help'",
                refused(FULL, "run", "mlp-train", "--device", "npu", "--device-memory", "lots"));
        assertEquals("vantage: --device-memory caps an accelerator's memory; the run is on cpu, whose memory is the"
                + " JVM's heap (set -Xmx in VANTAGE_JAVA_OPTS)",
                refused(FULL, "run", "mlp-train", "--device-memory", "256m"));
        assertEquals("vantage: --memory-snapshot records an accelerator allocator's history; the run is on cpu,"
                + " which has none", refused(FULL, "run", "mlp-train", "--memory-snapshot",
                dir.resolve("s.pickle").toString()));
        Path missing = dir.resolve("no-such-dir").resolve("s.pickle");
        assertEquals("vantage: --memory-snapshot " + missing + ": no directory " + missing.getParent(),
                refused(FULL, "run", "mlp-train", "--device", "npu", "--memory-snapshot", missing.toString()));
        assertEquals("vantage: --memory-snapshot " + dir + ": is a directory",
                refused(FULL, "run", "mlp-train", "--device", "npu", "--memory-snapshot", dir.toString()));
    }

    @Test
    public void memWritesATorchMemoryTimelineWithParametersGradientsAndOptimizerState() throws Exception {
        Path dir = tmp.newFolder("timeline").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--device", "npu", "--steps", "5",
                "--profile", "--profile-dir", dir.toString(), "--profile-name", "t", "--profile-activities", "CPU",
                "NPU", "MEM");
        assertEquals(r.err(), 0, r.exitCode());
        Path html = dir.resolve("t_memory-timeline").resolve("t.memory-timeline.html");
        Path json = dir.resolve("t_memory-timeline").resolve("t.memory-timeline.json");
        assertTrue(r.out(), r.out().contains("memory timeline written: " + html + "\n"));
        assertTrue(r.out(), r.out().contains("memory timeline written: " + json + "\n"));

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        JsonNode times = root.get(0);
        JsonNode sizes = root.get(1);
        assertTrue(sizes.toString(), sizes.size() > 10);
        assertEquals(times.size(), sizes.size());
        int parameter = 1;
        int optimizerState = 2;
        int gradient = 6;
        // the model was moved to the device in the warm-up step, before the recorded window: pre-existing, but
        // still known as parameters, and constant from then on
        long parameters = sizes.get(0).get(parameter).asLong();
        long floats = 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10;
        assertTrue("parameter bytes " + parameters, parameters >= 4 * floats && parameters <= 4 * floats + 6 * 512);
        for (JsonNode point : sizes) {
            assertEquals(9, point.size());
            assertEquals(parameters, point.get(parameter).asLong());
        }
        JsonNode last = sizes.get(sizes.size() - 1);
        assertTrue(last.toString(), last.get(gradient).asLong() > 0);
        // SGD's momentum buffers have the parameters' shapes
        assertEquals(last.toString(), parameters, last.get(optimizerState).asLong());

        // the categories add up to the allocator's total after the device's last [memory] event
        long lastTotal = -1;
        double lastTs = -1;
        for (JsonNode e : trace(dir).get("traceEvents")) {
            if (e.path("name").asText().equals("[memory]") && e.get("args").get("Device Type").asInt() != 0
                    && e.get("ts").asDouble() >= lastTs) {
                lastTs = e.get("ts").asDouble();
                lastTotal = e.get("args").get("Total Allocated").asLong();
                assertTrue(e.toString(), e.get("args").has("Category"));
            }
        }
        long sum = 0;
        for (JsonNode v : last) {
            sum += v.asLong();
        }
        assertEquals(lastTotal, sum);

        // the page: the timeline as data for the chart library report uses, inlined, nothing fetched
        String page = Files.readString(html);
        assertTrue(page.contains("id=\"vantage-memory-timeline\"") && page.contains("echarts.init("));
        assertTrue(page.contains("npu:0"));
        assertTrue(page.contains("emulated"));
        assertFalse(page.contains("src=\"http") || page.contains("href=\"http"));
    }

    /**
     * A profile folder after the README's first command with {@code MEM}, as trace readers list it: HTA takes every
     * {@code *.json} and {@code *.gz} entry of the folder for a rank's trace ({@code hta/common/trace_file.py}),
     * TensorBoard's plugin every {@code <worker>[.<span>].pt.trace.json[.gz]} under its logdir, and {@code report} and
     * {@code convert} every {@code *.json}, {@code *.json.gz} and {@code .pftrace} of the folder. Each finds the run's
     * traces and nothing else, and the memory timeline is where the run says. A folder an earlier version wrote,
     * with the timeline beside the trace, still reads as one trace.
     */
    @Test
    public void traceReadersPointedAtAProfileFolderFindItsTracesAndNothingElse() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--profile", "--profile-dir",
                dir.toString(), "--profile-name", "m", "--profile-activities", "CPU", "MEM", "--profile-export",
                "chrome", "tensorboard");
        assertEquals(r.err(), 0, r.exitCode());
        assertTrue(r.out(), r.out().contains("trace written: " + dir.resolve("m.trace.json.gz") + " "));

        assertEquals("what HTA takes for rank traces", List.of("m.trace.json.gz"), htaTraces(dir));
        for (String name : htaTraces(dir)) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve(name)))) {
                JsonNode root = new ObjectMapper().readTree(in);
                assertTrue(name, root.isObject() && root.get("traceEvents").isArray());
            }
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> workers = walk.filter(p -> TB_WORKER.matcher(p.getFileName().toString()).matches()).toList();
            assertEquals("what TensorBoard's plugin takes: " + workers, 1, workers.size());
            assertEquals(dir.resolve("m"), workers.get(0).getParent());
        }
        Path json = dir.resolve("m_memory-timeline").resolve("m.memory-timeline.json");
        assertTrue(r.out(), r.out().contains("memory timeline written: " + json + "\n"));
        JsonNode timeline = new ObjectMapper().readTree(json.toFile());
        assertTrue(timeline.toString(), timeline.get(0).size() > 0);
        assertEquals(timeline.get(0).size(), timeline.get(1).size());
        assertReadAsOneTrace(dir, "new");

        // as earlier versions wrote it: HTA takes the timeline for rank 0's trace; report and convert skip it
        Files.move(json, dir.resolve("m.memory-timeline.json"));
        assertEquals(List.of("m.memory-timeline.json", "m.trace.json.gz"), htaTraces(dir));
        assertReadAsOneTrace(dir, "old");
    }

    /** The names {@code os.listdir(trace_dir)} gives that HTA keeps: those ending in {@code .gz} or {@code .json}. */
    private static List<String> htaTraces(Path dir) throws Exception {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".gz") || n.endsWith(".json"))
                    .sorted().toList();
        }
    }

    private void assertReadAsOneTrace(Path dir, String label) throws Exception {
        Path page = tmp.getRoot().toPath().resolve(label + ".html");
        LauncherProcess.Result report = LauncherProcess.run(FULL, "report", dir.toString(), "-o", page.toString());
        assertEquals(report.err(), 0, report.exitCode());
        assertTrue(report.out(), report.out().contains("(1 trace)"));
        Path parquet = tmp.getRoot().toPath().resolve(label + "-parquet");
        LauncherProcess.Result convert = LauncherProcess.run(FULL, "convert", dir.toString(), "-o", parquet.toString());
        assertEquals(convert.err(), 0, convert.exitCode());
        try (Stream<Path> converted = Files.list(parquet)) {
            assertEquals(List.of("m_parquet"), converted.map(p -> p.getFileName().toString()).toList());
        }
    }
}
