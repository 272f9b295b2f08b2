package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The {@code vantage} command line, run through the built distribution's launcher as a separate process. */
public class CommandLineIT {

    /** The exporters' versions, as the build sets them. */
    private static final String CHROME = System.getProperty("vantage.exporter-chrome.version");
    private static final String CSV = System.getProperty("vantage.exporter-csv.version");

    private static final Path FULL = Distributions.home("full");
    private static final Path MINIMAL = Distributions.home("minimal");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void bundlesListsEveryBundleActive() throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(FULL, "bundles");
        assertEquals(r.err(), 0, r.exitCode());
        List<String> rows = r.out().lines().skip(1).collect(Collectors.toList());
        assertTrue(r.out(), rows.size() >= 15);
        for (String row : rows) {
            assertTrue("not active: " + row, row.endsWith(" ACTIVE"));
        }
        for (String bsn : List.of("dev.vantage.profiler.api", "dev.vantage.profiler.core", "dev.vantage.tensor",
                "dev.vantage.workloads", "dev.vantage.verbs", "dev.vantage.device.cpu",
                "dev.vantage.exporter.chrome", "dev.vantage.exporter.csv", "dev.vantage.exporter.tensorboard",
                "org.apache.felix.scr",
                "org.apache.felix.fileinstall")) {
            assertTrue("missing " + bsn + " in\n" + r.out(), r.out().contains(" " + bsn + " "));
        }
    }

    @Test
    public void devicesAndExportersListTheirBundles() throws Exception {
        LauncherProcess.Result devices = LauncherProcess.run(FULL, "devices");
        assertEquals(devices.err(), 0, devices.exitCode());
        assertTrue(devices.out(), devices.out().lines().anyMatch(
                l -> l.matches("cpu\\s+CPU\\s+native\\s+dev\\.vantage\\.device\\.cpu \\d+\\.\\d+\\.\\d+")));
        for (String device : List.of("npu\\s+NPU", "spyre\\s+spyre", "mps\\s+MPS")) {
            String bundle = device.substring(0, device.indexOf('\\'));
            assertTrue(devices.out(), devices.out().lines().anyMatch(l -> l.matches(device
                    + "\\s+emulated\\s+dev\\.vantage\\.device\\." + bundle + " \\d+\\.\\d+\\.\\d+")));
        }
        LauncherProcess.Result exporters = LauncherProcess.run(FULL, "exporters");
        assertEquals(0, exporters.exitCode());
        assertTrue(exporters.out(), exporters.out().lines().anyMatch(
                l -> l.matches("chrome\\s+dev\\.vantage\\.exporter\\.chrome \\d+\\.\\d+\\.\\d+")));
        assertTrue(exporters.out(), exporters.out().lines().anyMatch(
                l -> l.matches("csv\\s+dev\\.vantage\\.exporter\\.csv \\d+\\.\\d+\\.\\d+")));
        LauncherProcess.Result minimal = LauncherProcess.run(FULL, "--distribution", "minimal", "exporters");
        assertEquals(0, minimal.exitCode());
        assertEquals("FORMAT       BUNDLE\n", minimal.out());
    }

    @Test
    public void unknownVerbsFlagsAndValuesExitWith2AndNameTheValue() throws Exception {
        LauncherProcess.Result verb = LauncherProcess.run(FULL, "frobnicate");
        assertEquals(2, verb.exitCode());
        assertTrue(verb.err(), verb.err().contains("unknown verb 'frobnicate'"));
        LauncherProcess.Result flag = LauncherProcess.run(FULL, "bundles", "--shiny");
        assertEquals(2, flag.exitCode());
        assertTrue(flag.err(), flag.err().contains("'--shiny'"));
        LauncherProcess.Result workload = LauncherProcess.run(FULL, "run", "nosuchmodel");
        assertEquals(2, workload.exitCode());
        assertTrue(workload.err(), workload.err().contains("unknown workload 'nosuchmodel'; available: cnn-train,"
                + " matmul, mlp-train, onnx, parallel-infer, transformer-infer"));
        LauncherProcess.Result steps = LauncherProcess.run(FULL, "run", "matmul", "--steps", "zero");
        assertEquals(2, steps.exitCode());
        assertTrue(steps.err(), steps.err().contains("'zero'"));
        LauncherProcess.Result name = LauncherProcess.run(FULL, "run", "matmul", "--profile", "--profile-name",
                "../escape");
        assertEquals(2, name.exitCode());
        assertTrue(name.err(), name.err().contains("'../escape'"));
        LauncherProcess.Result format = LauncherProcess.run(FULL, "run", "matmul", "--profile", "--profile-export",
                "pdf");
        assertEquals(2, format.exitCode());
        assertTrue(format.err(), format.err().contains("--profile-export pdf: no such exporter in this distribution;"
                + " installed: chrome, csv, parquet, perfetto, tensorboard"));
        LauncherProcess.Result dist = LauncherProcess.run(FULL, "--distribution", "huge", "bundles");
        assertEquals(2, dist.exitCode());
        assertTrue(dist.err(), dist.err().contains("unknown distribution 'huge'; available: full, minimal"));
    }

    @Test
    public void helpExplainsEveryVerbWithExitCode0AndListsTheSameVerbsEverywhere() throws Exception {
        LauncherProcess.Result help = LauncherProcess.run(FULL, "--help");
        assertEquals(0, help.exitCode());
        List<String> listed = new java.util.ArrayList<>();
        boolean inVerbs = false;
        for (String line : help.out().lines().toList()) {
            if (line.equals("verbs:")) {
                inVerbs = true;
            } else if (inVerbs && line.matches("  [a-z]+ +\\S.*")) {
                listed.add(line.strip().split(" +")[0]);
            } else if (inVerbs && line.isEmpty()) {
                inVerbs = false;
            }
        }
        assertEquals(dev.vantage.cli.Cli.verbs(), listed);
        for (String verb : listed) {
            LauncherProcess.Result verbHelp = LauncherProcess.run(FULL, verb, "--help");
            assertEquals(verb + ": " + verbHelp.err(), 0, verbHelp.exitCode());
            assertTrue(verbHelp.out(), verbHelp.out().startsWith("usage: vantage " + verb));
            assertEquals(verb, "", verbHelp.err());
        }
        LauncherProcess.Result completion = LauncherProcess.run(FULL, "completion");
        assertEquals(0, completion.exitCode());
        for (String verb : listed) {
            assertTrue(verb, completion.out().matches("(?s).*\\b" + verb + "\\b.*"));
        }
    }

    @Test
    public void serveRefusesAnUnknownWorkloadOrDeviceInOneLineWithExitCode2() throws Exception {
        LauncherProcess.Result workload = LauncherProcess.run(FULL, "serve", "--workload", "nosuch");
        assertEquals(workload.err(), 2, workload.exitCode());
        assertEquals("vantage: unknown workload 'nosuch'; available: cnn-train, matmul, mlp-train, onnx, parallel-infer,"
                + " transformer-infer", workload.err().strip());
        LauncherProcess.Result device = LauncherProcess.run(FULL, "serve", "--workload", "matmul", "--device",
                "nosuch");
        assertEquals(device.err(), 2, device.exitCode());
        assertEquals(1, device.err().lines().count());
        assertTrue(device.err(), device.err().startsWith("vantage: --device nosuch: no such device backend;"));
        assertFalse(device.out(), device.out().contains("platform up"));
    }

    @Test
    public void runMatmulWithProfileWritesAChromeTraceAndPrintsTheTable() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "4", "--profile",
                "--profile-dir", dir.toString(), "--profile-name", "mm", "--rank", "1", "--world-size", "2");
        assertEquals(r.err(), 0, r.exitCode());
        assertTrue(r.out(), r.out().contains("Name    Self CPU %      Self CPU   CPU total %     CPU total"
                + "  CPU time avg    # of Calls"));
        // cache-dit's default schedule: step 0 warms up, steps 1 to 3 are recorded
        assertTrue(r.out(), r.out().lines().anyMatch(l -> l.matches("\\s+aten::matmul\\s.*\\s3\\s*")));
        assertTrue(r.out(), r.out().contains("Self CPU time total: "));
        Path trace = dir.resolve("mm-rank1.trace.json.gz");
        assertTrue(r.out(), r.out().contains("trace written: " + trace));
        try (Stream<Path> files = Files.list(dir)) {
            // and the run registry's line (RunRegistryIT reads it)
            assertEquals("only the trace and the run registry, no temporary file",
                    List.of(trace, dir.resolve("runs.jsonl")), files.sorted().collect(Collectors.toList()));
        }

        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = new ObjectMapper().readTree(in);
        }
        assertEquals(1, root.get("schemaVersion").asInt());
        long base = root.get("baseTimeNanoseconds").asLong();
        assertTrue(base > 1_600_000_000L * 1_000_000_000L);
        Map<String, Integer> ops = new HashMap<>();
        for (JsonNode e : root.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && "cpu_op".equals(e.path("cat").asText())) {
                ops.merge(e.get("name").asText(), 1, Integer::sum);
                assertTrue(e.toString(), e.get("ts").isNumber() && e.get("ts").asDouble() >= 0);
                assertTrue(e.toString(), e.get("dur").asDouble() >= 0);
                assertTrue(e.toString(), e.get("args").get("External id").asLong() > 0);
            }
        }
        assertEquals(Map.of("aten::matmul", 3, "aten::mm", 3, "aten::add", 3, "aten::sum", 3), ops);
        JsonNode events = root.get("traceEvents");
        assertEquals("Record Window End", events.get(events.size() - 1).get("name").asText());
    }

    @Test
    public void mlpTrainLossFallsAndItsProfileLinksForwardBackwardAndTheOptimizer() throws Exception {
        LauncherProcess.Result plain = LauncherProcess.run(FULL, "run", "mlp-train", "--steps", "30");
        assertEquals(plain.err(), 0, plain.exitCode());
        List<Double> losses = plain.out().lines().filter(l -> l.startsWith("step "))
                .map(l -> Double.parseDouble(l.substring(l.indexOf("loss ") + 5))).collect(Collectors.toList());
        assertEquals(plain.out(), 30, losses.size());
        assertTrue(plain.out(), losses.get(29) < losses.get(0) / 2);

        Path dir = tmp.newFolder("mlp").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--profile", "--profile-activities",
                "CPU", "--steps", "4", "--profile-dir", dir.toString(), "--profile-name", "mlp", "--profile-row-limit",
                "-1");
        assertEquals(r.err(), 0, r.exitCode());
        for (String row : List.of("aten::linear", "aten::addmm", "AddmmBackward0",
                "autograd::engine::evaluate_function: AddmmBackward0", "Optimizer.step#SGD.step",
                "aten::cross_entropy_loss", "NllLossBackward0")) {
            assertTrue(row + " in\n" + r.out(), r.out().lines().anyMatch(l -> l.trim().startsWith(row + " ")));
        }
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("mlp.trace.json.gz")))) {
            root = new ObjectMapper().readTree(in);
        }
        Map<Long, String> forwardBySeq = new HashMap<>();
        Map<Long, String> backwardBySeq = new HashMap<>();
        int flowStarts = 0;
        int flowEnds = 0;
        for (JsonNode e : root.get("traceEvents")) {
            JsonNode seq = e.path("args").path("Sequence number");
            if ("cpu_op".equals(e.path("cat").asText()) && seq.isNumber()) {
                (e.path("args").has("Fwd thread id") ? backwardBySeq : forwardBySeq).put(seq.asLong(),
                        e.get("name").asText());
            }
            if ("fwdbwd".equals(e.path("cat").asText())) {
                if ("s".equals(e.path("ph").asText())) {
                    flowStarts++;
                } else {
                    flowEnds++;
                }
            }
        }
        assertEquals("aten::addmm", forwardBySeq.get(backwardBySeq.entrySet().stream()
                .filter(b -> b.getValue().equals("AddmmBackward0")).findFirst().orElseThrow().getKey()));
        assertTrue("forward/backward flows: " + flowStarts + " starts, " + flowEnds + " ends",
                flowStarts > 0 && flowEnds > 0);
    }

    @Test
    public void mlpTrainOnTheNpuLinksEveryKernelToTheOpThatLaunchedIt() throws Exception {
        JsonNode root = profiledOn("npu", "NPU", "mlp-train", "--steps", "4", "--profile-export", "chrome", "csv");
        Set<Long> streams = deviceTraceChecks(root, "npu", "NPU 0");
        Path csv = tmp.getRoot().toPath().resolve("npu-mlp-train").resolve("t_csv").resolve("kernel_details.csv");
        Set<String> units = new HashSet<>();
        try (Reader in = Files.newBufferedReader(csv)) {
            for (CSVRecord row : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build()
                    .parse(in)) {
                if (row.get("Name").equals("MatMulV3")) {
                    assertEquals(row.toString(), "AI_CORE", row.get("Accelerator Core"));
                    assertTrue(row.toString(), Integer.parseInt(row.get("Block Num")) >= 1);
                }
                units.add(row.get("Accelerator Core"));
            }
        }
        assertTrue("kernel_details.csv fills Accelerator Core from the NPU's records: " + units,
                units.containsAll(Set.of("AI_CORE", "AI_VECTOR_CORE", "AI_CPU")));
        assertEquals("the default stream, numbered 1 in traces", Set.of(1L), streams);
        boolean cores = false;
        for (JsonNode e : root.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText())) {
                assertTrue(e.toString(), e.path("args").path("Block Num").asLong() >= 1);
                cores |= "AI_CORE".equals(e.path("args").path("Accelerator Core").asText());
            }
        }
        assertTrue("matrix products run on the AI Core", cores);
    }

    @Test
    public void mlpTrainOnSpyreLinksEveryKernelAndShowsTheDeviceInitOnce() throws Exception {
        // from the first step: the lazy init happens there
        JsonNode root = profiledOn("spyre", "SPYRE", "mlp-train", "--steps", "4", "--profile-warmup", "0",
                "--profile-active", "4");
        deviceTraceChecks(root, "spyre", "SPYRE 0");
        long inits = 0;
        for (JsonNode e : root.get("traceEvents")) {
            if ("privateuse1_runtime".equals(e.path("cat").asText()) && e.path("name").asText().contains("Init")) {
                inits++;
            }
        }
        assertEquals("the lazy device init appears once in the first profile", 1, inits);
    }

    @Test
    public void mlpTrainOnMpsLinksEveryKernelToTheOpThatLaunchedIt() throws Exception {
        deviceTraceChecks(profiledOn("mps", "MPS", "mlp-train", "--steps", "4"), "mps", "MPS 0");
    }

    @Test
    public void parallelInferenceOnMpsRunsOnAStreamPerThread() throws Exception {
        JsonNode root = profiledOn("mps", "MPS", "parallel-infer", "--threads", "4");
        Set<Long> streams = deviceTraceChecks(root, "mps", "MPS 0");
        assertTrue("kernels on at least 4 streams: " + streams, streams.size() >= 4);
    }

    /**
     * Runs a workload on a device with CPU and device activity and returns its Chrome trace, after checking the
     * command printed the device's columns and the emulated note.
     */
    private JsonNode profiledOn(String device, String activity, String workload, String... flags) throws Exception {
        Path dir = tmp.newFolder(device + "-" + workload).toPath();
        List<String> args = new ArrayList<>(List.of("run", workload, "--device", device, "--profile",
                "--profile-activities", "CPU", activity, "--profile-dir", dir.toString(), "--profile-name", "t"));
        args.addAll(List.of(flags));
        LauncherProcess.Result r = LauncherProcess.run(FULL, args.toArray(new String[0]));
        assertEquals(r.err(), 0, r.exitCode());
        String upper = device.toUpperCase(java.util.Locale.ROOT);
        assertTrue(r.out(), r.out().contains("Self " + upper + " %") && r.out().contains(upper + " total"));
        assertTrue(r.out(), r.out().lines().anyMatch(l -> l.startsWith("Self " + upper + " time total: ")));
        assertTrue(r.out(), r.out().contains(device + ":0 is emulated"));
        try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("t.trace.json.gz")))) {
            return new ObjectMapper().readTree(in);
        }
    }

    /**
     * Checks the Kineto contract of a device trace: every kernel, copy and fill names by {@code External id} a
     * {@code cpu_op} in the trace and starts after its launch (the runtime event of the same {@code correlation},
     * on the CPU op's thread, inside the op), with an {@code ac2g} flow from launch to work; the device has its
     * process row below the host's, labelled, emulated in its name and in {@code deviceProperties}. Returns the
     * streams that ran work.
     */
    private static Set<Long> deviceTraceChecks(JsonNode root, String type, String label) {
        Map<Long, JsonNode> ops = new HashMap<>();
        Map<Long, JsonNode> launches = new HashMap<>();
        List<JsonNode> work = new ArrayList<>();
        Map<Long, Integer> flows = new HashMap<>();
        long devicePid = -1;
        for (JsonNode e : root.get("traceEvents")) {
            String cat = e.path("cat").asText();
            switch (cat) {
                case "cpu_op" -> ops.put(e.path("args").path("External id").asLong(), e);
                case "privateuse1_runtime" -> launches.put(e.path("args").path("correlation").asLong(), e);
                case "kernel", "gpu_memcpy", "gpu_memset" -> work.add(e);
                case "ac2g" -> flows.merge(e.get("id").asLong(), "s".equals(e.get("ph").asText()) ? 1 : 10,
                        Integer::sum);
                default -> {
                }
            }
            if ("process_labels".equals(e.path("name").asText())
                    && label.equals(e.path("args").path("labels").asText())) {
                devicePid = e.get("pid").asLong();
            }
        }
        assertTrue("work on the device", work.size() > 10);
        Set<Long> streams = new HashSet<>();
        for (JsonNode k : work) {
            JsonNode op = ops.get(k.path("args").path("External id").asLong());
            assertTrue("External id of " + k + " names a cpu_op in the trace", op != null);
            JsonNode launch = launches.get(k.path("args").path("correlation").asLong());
            assertTrue("launch of " + k, launch != null);
            assertEquals(op.get("tid").asLong(), launch.get("tid").asLong());
            assertTrue(k + " starts after its launch " + launch,
                    k.get("ts").asDouble() >= launch.get("ts").asDouble());
            assertTrue(launch + " inside " + op, launch.get("ts").asDouble() >= op.get("ts").asDouble());
            assertEquals(k.toString(), Integer.valueOf(11), flows.get(k.path("args").path("correlation").asLong()));
            assertEquals(devicePid, k.get("pid").asLong());
            streams.add(k.get("tid").asLong());
        }
        boolean emulatedProcess = false;
        for (JsonNode e : root.get("traceEvents")) {
            if ("process_name".equals(e.path("name").asText()) && e.get("pid").asLong() == devicePid) {
                emulatedProcess = e.path("args").path("name").asText().endsWith("(emulated)");
            }
        }
        assertTrue("the device's process name says emulated", emulatedProcess);
        JsonNode props = root.get("deviceProperties");
        boolean listed = false;
        for (JsonNode p : props) {
            listed |= type.equals(p.path("type").asText()) && p.path("emulated").asBoolean();
        }
        assertTrue(props.toString(), listed);
        assertEquals("true", root.path("vantage.device." + type + ".emulated").asText());
        return streams;
    }

    @Test
    public void aTrainingRunExportedInAllThreeFormatsReadsBackWithIndependentParsers() throws Exception {
        Path dir = tmp.newFolder("all").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--steps", "3", "--profile",
                "--profile-export", "chrome", "tensorboard", "csv", "--profile-dir", dir.toString(),
                "--profile-name", "all");
        assertEquals(r.err(), 0, r.exitCode());

        JsonNode chrome;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("all.trace.json.gz")))) {
            chrome = new ObjectMapper().readTree(in);
        }
        Set<String> names = new HashSet<>();
        for (JsonNode e : chrome.get("traceEvents")) {
            names.add(e.path("cat").asText() + "/" + e.path("name").asText());
        }
        assertTrue(names.toString(), names.containsAll(List.of("cpu_op/AddmmBackward0", "cpu_op/aten::addmm",
                "user_annotation/Optimizer.step#SGD.step", "fwdbwd/fwdbwd")));

        Path run = dir.resolve("all");
        List<Path> files;
        try (Stream<Path> s = Files.list(run)) {
            files = s.sorted().collect(Collectors.toList());
        }
        assertEquals(files.toString(), 2, files.size());
        assertTrue(files.get(1).getFileName().toString().endsWith(".pt.trace.json.gz"));
        byte[] events = Files.readAllBytes(files.get(0));
        int records = 0;
        ByteBuffer b = ByteBuffer.wrap(events).order(ByteOrder.LITTLE_ENDIAN);
        String payloads = "";
        while (b.hasRemaining()) {
            byte[] header = new byte[8];
            b.get(header);
            assertEquals("length CRC of record " + records, maskedCrc32c(header), b.getInt());
            byte[] data = new byte[(int) ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getLong()];
            b.get(data);
            assertEquals("data CRC of record " + records, maskedCrc32c(data), b.getInt());
            payloads += new String(data, StandardCharsets.ISO_8859_1);
            records++;
        }
        assertTrue(records > 1);
        assertTrue(payloads.contains("step_time_ms") && payloads.contains("cpu_op_time_ms"));

        Path views = dir.resolve("all_csv");
        try (Reader in = Files.newBufferedReader(views.resolve("operator_details.csv"))) {
            List<CSVRecord> rows = CSVFormat.DEFAULT.builder().setHeader().build().parse(in).getRecords();
            Set<String> ops = new HashSet<>();
            for (CSVRecord row : rows) {
                assertTrue(row.toString(), row.isConsistent());
                ops.add(row.get("Name"));
            }
            assertTrue(ops.toString(), ops.containsAll(List.of("aten::addmm", "AddmmBackward0",
                    "autograd::engine::evaluate_function: AddmmBackward0")));
        }
        for (String view : List.of("kernel_details.csv", "op_statistic.csv", "step_trace_time.csv")) {
            assertTrue(view, Files.size(views.resolve(view)) > 0);
        }
    }

    /** TFRecord's checksum: CRC32C, rotated right by 15 bits, plus a constant. */
    private static int maskedCrc32c(byte[] data) {
        CRC32C crc = new CRC32C();
        crc.update(data);
        int c = (int) crc.getValue();
        return ((c >>> 15) | (c << 17)) + 0xa282ead8;
    }

    @Test
    public void everyWorkloadRuns() throws Exception {
        for (List<String> args : List.of(List.of("cnn-train", "--steps", "3"),
                List.of("transformer-infer", "--steps", "3"),
                List.of("parallel-infer", "--steps", "2", "--threads", "3", "--batch-size", "8"),
                List.of("mlp-train", "--steps", "2", "--optimizer", "adam", "--batch-size", "16"))) {
            List<String> command = new ArrayList<>(List.of("run"));
            command.addAll(args);
            LauncherProcess.Result r = LauncherProcess.run(FULL, command.toArray(new String[0]));
            assertEquals(args + ": " + r.err(), 0, r.exitCode());
            assertTrue(args + ": " + r.out(), r.out().lines().anyMatch(l -> l.startsWith("step 2 ")));
        }
        LauncherProcess.Result bad = LauncherProcess.run(FULL, "run", "mlp-train", "--optimizer", "lbfgs");
        assertEquals(2, bad.exitCode());
        assertTrue(bad.err(), bad.err().contains("'lbfgs'"));
    }

    @Test
    public void aScheduledRunWritesOneTraceHoldingOnlyTheActiveSteps() throws Exception {
        Path dir = tmp.newFolder("scheduled").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--profile", "--profile-record-shapes",
                "--profile-wait", "1", "--profile-warmup", "1", "--profile-active", "2", "--profile-repeat", "1",
                "--steps", "6", "--profile-dir", dir.toString(), "--profile-name", "sched");
        assertEquals(r.err(), 0, r.exitCode());
        Path trace = dir.resolve("sched.trace.json.gz");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("runs.jsonl"), trace), files.sorted().collect(Collectors.toList()));
        }
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = new ObjectMapper().readTree(in);
        }
        List<String> annotations = new ArrayList<>();
        int matmuls = 0;
        for (JsonNode e : root.get("traceEvents")) {
            if ("user_annotation".equals(e.path("cat").asText())) {
                annotations.add(e.get("name").asText());
            }
            if ("aten::matmul".equals(e.path("name").asText())) {
                matmuls++;
                assertEquals("[[256,256],[256,256]]", e.get("args").get("Input Dims").toString());
                assertEquals("[\"float\",\"float\"]", e.get("args").get("Input type").toString());
            }
        }
        assertEquals(List.of("ProfilerStep#2", "ProfilerStep#3"), annotations);
        assertEquals(2, matmuls);
        assertEquals("1", root.get("record_shapes").asText());
        assertTrue(r.out(), r.out().lines().anyMatch(l -> l.matches("\\s+ProfilerStep#2\\s.*\\s1\\s*")));
        assertTrue(r.out(), r.out().contains("Self CPU time total: "));
    }

    @Test
    public void aProfileNameGivenTwiceInOneFolderLosesNoTrace() throws Exception {
        // runs given one --profile-name wrote over each other's traces: the later run now takes <name>-2 and says so
        Path dir = tmp.newFolder("same").toPath();
        String[] args = {"run", "matmul", "--steps", "2", "--profile", "--profile-warmup", "0", "--profile-dir",
                dir.toString(), "--profile-name", "same"};
        LauncherProcess.Result first = LauncherProcess.run(FULL, args);
        assertEquals(first.err(), 0, first.exitCode());
        LauncherProcess.Result second = LauncherProcess.run(FULL, args);
        assertEquals(second.err(), 0, second.exitCode());
        assertEquals(second.err(), 1, second.err().lines().filter(l -> l.contains("--profile-name same is taken in"))
                .count());
        Set<String> traces;
        try (Stream<Path> files = Files.list(dir)) {
            traces = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".trace.json.gz"))
                    .collect(Collectors.toSet());
        }
        assertEquals(Set.of("same.trace.json.gz", "same-2.trace.json.gz"), traces);
        for (String name : traces) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve(name)))) {
                JsonNode events = new ObjectMapper().readTree(in).path("traceEvents");
                assertTrue(name + " holds a whole trace", events.size() > 0);
            }
        }
    }

    @Test
    public void theCsvExporterWritesTorchNpuViewsFromTheCommandLine() throws Exception {
        Path dir = tmp.newFolder("csv").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "3", "--profile",
                "--profile-wait", "0", "--profile-warmup", "1", "--profile-active", "2", "--profile-repeat", "1",
                "--profile-export", "chrome", "csv", "--profile-dir", dir.toString(), "--profile-name", "v");
        assertEquals(r.err(), 0, r.exitCode());
        Path views = dir.resolve("v_csv");
        assertTrue(r.out(), r.out().contains("trace written: " + views));
        List<String> steps = Files.readAllLines(views.resolve("step_trace_time.csv"));
        assertEquals("Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,"
                + "Bubble,Communication(Not Overlapped and Exclude Receive),Preparing", steps.get(0));
        assertEquals(3, steps.size());
        assertTrue(steps.get(1), steps.get(1).startsWith("cpu,1,"));
        List<String> ops = Files.readAllLines(views.resolve("operator_details.csv"));
        assertTrue(ops.toString(), ops.stream().anyMatch(l -> l.startsWith("aten::matmul,")));
    }

    @Test
    public void memoryProfilingShowsMemoryColumnsAndWritesTheMemoryViews() throws Exception {
        Path dir = tmp.newFolder("mem").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "3", "--profile",
                "--profile-warmup", "0", "--profile-activities", "CPU", "MEM", "--profile-export", "chrome", "csv",
                "tensorboard",
                "--profile-dir", dir.toString(), "--profile-name", "m");
        assertEquals(r.err(), 0, r.exitCode());
        // no component trouble while exporters, the profiler and the allocator bind each other
        assertFalse(r.err(), r.err().contains("ERROR") || r.err().contains("Circular"));
        assertTrue(r.out(), r.out().contains("CPU Mem  Self CPU Mem"));
        assertTrue(r.out(), r.out().lines().anyMatch(l -> l.matches("\\s+aten::matmul\\s.*\\s768\\.05 Kb\\s.*")));
        List<String> record = Files.readAllLines(dir.resolve("m_csv").resolve("memory_record.csv"));
        assertTrue(record.toString(), record.size() > 1 && record.get(1).startsWith("PTA,"));
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("m.trace.json.gz")))) {
            root = new ObjectMapper().readTree(in);
        }
        int memory = 0;
        for (JsonNode e : root.get("traceEvents")) {
            if ("[memory]".equals(e.path("name").asText())) {
                memory++;
                assertEquals(0, e.get("args").get("Device Type").asInt());
            }
        }
        assertTrue("memory instants: " + memory, memory >= 9);
        assertEquals("1", root.get("profile_memory").asText());
    }

    @Test
    public void theTensorBoardExporterWritesARunDirectory() throws Exception {
        Path dir = tmp.newFolder("tb").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "4", "--profile",
                "--profile-wait", "1", "--profile-warmup", "1", "--profile-active", "2", "--profile-repeat", "1",
                "--profile-export", "tensorboard", "--profile-dir", dir.toString(), "--profile-name", "run1");
        assertEquals(r.err(), 0, r.exitCode());
        Path run = dir.resolve("run1");
        List<String> names;
        try (Stream<Path> s = Files.list(run)) {
            names = s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
        assertEquals(names.toString(), 2, names.size());
        assertTrue(names.toString(), names.get(0).startsWith("events.out.tfevents."));
        assertTrue(names.toString(), names.get(1).matches(".+_\\d+\\.\\d{19,}\\.pt\\.trace\\.json\\.gz"));
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(run.resolve(names.get(1))))) {
            root = new ObjectMapper().readTree(in);
        }
        List<String> steps = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            if (e.path("name").asText().startsWith("ProfilerStep#")) {
                steps.add(e.get("name").asText());
            }
        }
        assertEquals(List.of("ProfilerStep#2", "ProfilerStep#3"), steps);
    }

    @Test
    public void repeatedCyclesGoToNumberedChromeFilesAndOneTensorBoardRun() throws Exception {
        Path dir = tmp.newFolder("cycles").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "4", "--profile",
                "--profile-warmup", "0", "--profile-active", "2", "--profile-repeat", "0", "--profile-export",
                "chrome", "tensorboard", "--profile-dir",
                dir.toString(), "--profile-name", "c");
        assertEquals(r.err(), 0, r.exitCode());
        // steps 0-1 and 2-3 complete two cycles; the third, partial one holds only the step the run ended in
        for (int k = 1; k <= 2; k++) {
            assertTrue("cycle " + k, Files.exists(dir.resolve("c-cycle" + k + ".trace.json.gz")));
        }
        assertFalse(Files.exists(dir.resolve("c-cycle3.trace.json.gz")));
        assertTrue(r.err(), r.err().contains("vantage: cycle 3 holds no op (the run ended at its start): no trace"
                + " written for it"));
        try (Stream<Path> s = Files.list(dir.resolve("c"))) {
            assertEquals("two traces and two event files in one run", 4, s.count());
        }
    }

    @Test
    public void withStackWritesCollapsedStacksNamingTheWorkloadsFrames() throws Exception {
        Path dir = tmp.newFolder("stacks").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "2", "--profile",
                "--profile-with-stack", "--profile-dir", dir.toString(), "--profile-name", "st");
        assertEquals(r.err(), 0, r.exitCode());
        List<String> lines = Files.readAllLines(dir.resolve("st.stacks"));
        assertTrue(lines.toString(), lines.stream().anyMatch(l -> l.matches(
                ".*dev\\.vantage\\.workloads\\.internal\\.MatmulWorkload\\.run\\(MatmulWorkload\\.java:\\d+\\);"
                        + "aten::matmul \\d+")));
        assertTrue(r.out(), r.out().contains("stacks written: " + dir.resolve("st.stacks")));
    }

    @Test
    public void serveHotDeploysAnExporterIntoTheMinimalDistributionAndReportsBadFiles() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--distribution", "minimal",
                "--deploy-dir", deploy.toString())) {
            serve.awaitLine("platform up: distribution minimal");
            Path jar = deploy.resolve("exporter-chrome.jar");
            Files.copy(Distributions.fullBundle("exporter-chrome-"), jar);
            serve.awaitLine("exporter registered: chrome (dev.vantage.exporter.chrome " + CHROME + ")");
            Files.delete(jar);
            serve.awaitLine("exporter unregistered: chrome (dev.vantage.exporter.chrome " + CHROME + ")");

            Files.writeString(deploy.resolve("broken.jar"), "not a zip");
            String line = serve.awaitLine("broken.jar");
            assertTrue(line, line.startsWith("err: vantage: deploy: ") && line.contains("not a readable jar"));
            Files.writeString(deploy.resolve("dev.vantage.profiler.core.internal.ProfilerComponent.cfg"),
                    "maxEvents=lots\n");
            line = serve.awaitLine("maxEvents='lots'");
            assertTrue(line, line.contains("ProfilerComponent.cfg"));

            // the platform still hot-deploys after the bad input
            Files.copy(Distributions.fullBundle("exporter-chrome-"), jar);
            serve.awaitLine("exporter registered: chrome");
        }
    }

    @Test
    public void aDeployedBundleThatCannotResolveIsNamedWithWhatItMissesAndWhereToGetIt() throws Exception {
        Path deploy = tmp.newFolder("deploy-unresolved").toPath();
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--distribution", "minimal",
                "--deploy-dir", deploy.toString())) {
            serve.awaitLine("platform up: distribution minimal");
            Files.copy(Distributions.fullBundle("exporter-csv-"), deploy.resolve("exporter-csv.jar"));
            String line = serve.awaitLine("cannot resolve");
            assertEquals("err: vantage: deploy: bundle dev.vantage.exporter.csv " + CSV + " (exporter-csv.jar) cannot"
                    + " resolve: it needs package com.fasterxml.jackson.databind [2.22.0,3.0.0), which"
                    + " jackson-databind-2.22.4.jar of the full distribution provides: deploy it too; and package"
                    + " com.fasterxml.jackson.dataformat.csv [2.22.0,3.0.0), which jackson-dataformat-csv-2.22.4.jar"
                    + " of the full distribution provides: deploy it too; the platform goes on", line);
            // what the line says works: the platform takes the exporter once its dependencies are deployed
            for (String jar : new String[] {"jackson-annotations-", "jackson-databind-", "jackson-dataformat-csv-"}) {
                Path from = Distributions.fullBundle(jar);
                Files.copy(from, deploy.resolve(from.getFileName()));
            }
            serve.awaitLine("exporter registered: csv (dev.vantage.exporter.csv " + CSV + ")");
        }
    }

    @Test
    public void serveRefusesADeployDirectoryOtherUsersCanWriteUnlessTold() throws Exception {
        Path deploy = tmp.newFolder("shared-deploy").toPath();
        Files.setPosixFilePermissions(deploy, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        LauncherProcess.Result refused = LauncherProcess.run(FULL, "serve", "--deploy-dir", deploy.toString());
        assertEquals(refused.err(), 2, refused.exitCode());
        assertEquals("vantage: deploy directory " + deploy + " is writable by every user (rwxrwxrwx): a jar placed"
                + " there would run with this platform's rights; make it yours alone (chown and chmod go-w " + deploy
                + ") or pass --allow-shared-deploy-dir", refused.err().strip());

        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--deploy-dir", deploy.toString(),
                "--allow-shared-deploy-dir")) {
            String warning = serve.awaitLine("WARNING");
            assertTrue(warning, warning.contains("is writable by every user"));
            serve.awaitLine("platform up: distribution full");
        }
    }

    @Test
    public void shellRunsGogoCommandsFromStandardInputAndStops() throws Exception {
        try (LauncherProcess shell = LauncherProcess.start(FULL, "shell")) {
            shell.input("vantage:devices\nvantage:workloads\nstop 0\n");
            shell.awaitLine("dev.vantage.device.cpu");
            shell.awaitLine("matmul + add + sum");
            assertEquals(0, shell.awaitExit());
        }
    }

    @Test
    public void aCorruptBundleInTheDistributionStopsTheLaunchWithItsName() throws Exception {
        Path copy = tmp.newFolder("dist").toPath().resolve("minimal");
        copyTree(MINIMAL, copy);
        Path victim;
        try (Stream<Path> s = Files.list(copy.resolve("bundles"))) {
            victim = s.filter(p -> p.getFileName().toString().startsWith("workloads-")).findFirst().orElseThrow();
        }
        Files.writeString(victim, "garbage");
        LauncherProcess.Result r = LauncherProcess.run(copy, "bundles");
        assertEquals(r.err(), 1, r.exitCode());
        assertTrue(r.err(), r.err().contains("cannot install bundle " + victim));
        assertFalse(r.out(), r.out().contains("ACTIVE"));
    }

    private static void copyTree(Path from, Path to) throws IOException {
        List<Path> paths = new ArrayList<>();
        try (Stream<Path> s = Files.walk(from)) {
            s.sorted(Comparator.naturalOrder()).forEach(paths::add);
        }
        for (Path p : paths) {
            Path target = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) {
                Files.createDirectories(target);
            } else {
                Files.copy(p, target);
            }
        }
    }

    @Test
    public void exitInTheShellStopsThePlatform() throws Exception {
        try (LauncherProcess shell = LauncherProcess.start(FULL, "shell")) {
            shell.awaitLine("backend registered: cpu");
            // standard input stays open: the shell must stop because of exit, not because input ended
            shell.send("exit");
            assertEquals(0, shell.awaitExit());
            assertFalse(shell.output(), shell.output().contains("Cannot coerce"));
        }
    }
}
