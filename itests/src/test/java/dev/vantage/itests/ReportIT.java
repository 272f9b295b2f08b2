package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code vantage report} and {@code vantage compare} on real profiles: the numbers the report embeds (and draws)
 * equal those of the csv views written for the same trace, read back with an independent CSV parser; the page
 * renders in headless Chromium without a script error (skipped when Chromium is not installed); compare reads runs
 * by id from {@code runs.jsonl}.
 */
public class ReportIT {

    private static final Path FULL = Distributions.home("full");
    private static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"vantage-data\">(.*?)</script>", Pattern.DOTALL);

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static List<CSVRecord> csv(Path file) throws Exception {
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in).getRecords();
        }
    }

    /** A csv time in microseconds with three decimals, as exact nanoseconds. */
    private static long nanos(String micros) {
        return new BigDecimal(micros).movePointRight(3).longValueExact();
    }

    private static JsonNode embedded(Path page) throws Exception {
        Matcher m = DATA.matcher(Files.readString(page));
        assertTrue("no embedded data in " + page, m.find());
        return new ObjectMapper().readTree(m.group(1));
    }

    private static Map<String, JsonNode> byKey(JsonNode array, String... fields) {
        Map<String, JsonNode> map = new HashMap<>();
        for (JsonNode n : array) {
            List<String> key = new ArrayList<>();
            for (String f : fields) {
                key.add(n.get(f).asText());
            }
            assertEquals("unique " + key, null, map.put(String.join("\u0000", key), n));
        }
        return map;
    }

    /**
     * The rows of a summary's key averages whose kind is one of {@code kinds}: the operators ({@code cpu_op}) are the
     * rows the csv operator views have; the key averages hold the steps, annotations, runtime calls and device work
     * too, as the profile's table does.
     */
    private static JsonNode rows(JsonNode ops, java.util.function.Predicate<String> kinds) {
        com.fasterxml.jackson.databind.node.ArrayNode out = new ObjectMapper().createArrayNode();
        for (JsonNode o : ops) {
            if (kinds.test(o.get("kind").asText())) {
                out.add(o);
            }
        }
        return out;
    }

    private static JsonNode operators(JsonNode ops) {
        return rows(ops, "cpu_op"::equals);
    }

    /** The host rows, as {@code compare} compares them: everything but device work. */
    private static JsonNode hostRows(JsonNode ops) {
        return rows(ops, k -> !List.of("kernel", "gpu_memcpy", "gpu_memset").contains(k));
    }

    /**
     * torch's input shapes as the key averages print them ({@code [[8, 16], [16]]}) in torch_npu's notation
     * ({@code 8,16;16}: dims joined by commas, inputs by semicolons). torch_npu's is the poorer one: an op with no
     * inputs and an op with one scalar input are both {@code ""} there, so the comparison is made in its terms.
     */
    private static String npuShapes(String torch) {
        String inner = torch.strip();
        if (inner.length() < 2) {
            return "";
        }
        inner = inner.substring(1, inner.length() - 1).strip();
        if (inner.isEmpty() || inner.equals("[]")) {
            return "";
        }
        List<String> inputs = new ArrayList<>();
        for (String input : inner.substring(1, inner.length() - 1).split("\\],\\s*\\[", -1)) {
            inputs.add(input.replace(" ", ""));
        }
        return String.join(";", inputs);
    }

    /** Sums the rows of {@code array} by name and input shapes in torch_npu's notation, field by field. */
    private static Map<String, long[]> byNpuShapes(JsonNode array, String... fields) {
        Map<String, long[]> sums = new HashMap<>();
        for (JsonNode n : array) {
            long[] sum = sums.computeIfAbsent(n.get("name").asText() + "\u0000"
                    + npuShapes(n.get("inputShapes").asText()), k -> new long[fields.length]);
            for (int i = 0; i < fields.length; i++) {
                sum[i] += n.get(fields[i]).asLong();
            }
        }
        return sums;
    }

    /** Checks one trace's embedded summary against the csv views of the same profile. */
    private static void assertMatchesCsv(JsonNode trace, Path csvDir) throws Exception {
        // op_statistic.csv: device work by name
        Map<String, JsonNode> kernels = byKey(trace.get("kernels"), "name");
        List<CSVRecord> statistic = csv(csvDir.resolve("op_statistic.csv"));
        assertFalse("no device work in " + csvDir, statistic.isEmpty());
        assertEquals(statistic.size(), kernels.size());
        long kernelCount = 0;
        for (CSVRecord r : statistic) {
            JsonNode k = kernels.get(r.get("OP Type"));
            assertEquals(r.toString(), Long.parseLong(r.get("Count")), k.get("count").asLong());
            assertEquals(r.toString(), nanos(r.get("Total Time(us)")), k.get("totalNanos").asLong());
            assertEquals(r.toString(), nanos(r.get("Min Time(us)")), k.get("minNanos").asLong());
            assertEquals(r.toString(), nanos(r.get("Avg Time(us)")), k.get("meanNanos").asLong());
            assertEquals(r.toString(), nanos(r.get("Max Time(us)")), k.get("maxNanos").asLong());
            kernelCount += k.get("count").asLong();
        }
        assertEquals(csv(csvDir.resolve("kernel_details.csv")).size(), kernelCount);

        // operator_details.csv: rows by name, input shapes and stack; summed by name, and by name and shapes
        Map<String, long[]> byName = new LinkedHashMap<>();
        Map<String, long[]> byShape = new LinkedHashMap<>();
        String[] columns = {"Host Self Duration(us)", "Host Total Duration(us)", "Device Self Duration(us)",
            "Device Total Duration(us)"};
        for (CSVRecord r : csv(csvDir.resolve("operator_details.csv"))) {
            long[] name = byName.computeIfAbsent(r.get("Name"), k -> new long[4]);
            long[] shape = byShape.computeIfAbsent(r.get("Name") + "\u0000" + r.get("Input Shapes"),
                    k -> new long[4]);
            for (int i = 0; i < 4; i++) {
                name[i] += nanos(r.get(columns[i]));
                shape[i] += nanos(r.get(columns[i]));
            }
        }
        String[] fields = {"selfNanos", "totalNanos", "deviceSelfNanos", "deviceTotalNanos"};
        Map<String, JsonNode> ops = byKey(operators(trace.get("ops")), "name");
        Map<String, long[]> opsByShape = byNpuShapes(operators(trace.get("opsByShape")), fields);
        assertEquals(byName.keySet(), ops.keySet());
        assertEquals(byShape.keySet(), opsByShape.keySet());
        for (int i = 0; i < 4; i++) {
            for (Map.Entry<String, long[]> e : byName.entrySet()) {
                assertEquals(e.getKey() + " " + fields[i], e.getValue()[i], ops.get(e.getKey()).get(fields[i])
                        .asLong());
            }
            for (Map.Entry<String, long[]> e : byShape.entrySet()) {
                assertEquals(e.getKey() + " " + fields[i], e.getValue()[i], opsByShape.get(e.getKey())[i]);
            }
        }

        // step_trace_time.csv: compute is kernel + memcpy + memset; communication not overlapped; free the rest
        List<CSVRecord> steps = csv(csvDir.resolve("step_trace_time.csv"));
        assertEquals(steps.size(), trace.get("steps").size());
        for (int i = 0; i < steps.size(); i++) {
            CSVRecord r = steps.get(i);
            JsonNode s = trace.get("steps").get(i);
            assertEquals(r.get("Step"), s.get("step").asText());
            long compute = s.get("kernelNanos").asLong() + s.get("memcpyNanos").asLong()
                    + s.get("memsetNanos").asLong();
            long communication = s.get("communicationNanos").asLong();
            assertEquals(r.toString(), nanos(r.get("Computing")), compute);
            assertEquals(r.toString(), nanos(r.get("Communication(Not Overlapped)")), communication);
            assertEquals(r.toString(), nanos(r.get("Free")),
                    Math.max(0, s.get("durationNanos").asLong() - compute - communication));
            long categories = 0;
            for (String c : List.of("kernelNanos", "memcpyNanos", "memsetNanos", "communicationNanos",
                    "runtimeNanos", "cpuOpNanos", "otherNanos")) {
                categories += s.get(c).asLong();
            }
            assertTrue(r.toString(), categories >= s.get("durationNanos").asLong());
        }

        // memory_record.csv: every allocator event, per device, in MB with three decimals
        Map<String, List<CSVRecord>> memory = new LinkedHashMap<>();
        for (CSVRecord r : csv(csvDir.resolve("memory_record.csv"))) {
            memory.computeIfAbsent(r.get("Device Type"), k -> new ArrayList<>()).add(r);
        }
        Map<String, JsonNode> curves = byKey(trace.get("memory"), "device");
        assertEquals(memory.keySet(), curves.keySet());
        for (Map.Entry<String, List<CSVRecord>> e : memory.entrySet()) {
            JsonNode curve = curves.get(e.getKey());
            assertEquals(e.getKey(), e.getValue().size(), curve.get("events").asLong());
            BigDecimal peak = e.getValue().stream().map(r -> new BigDecimal(r.get("Total Allocated(MB)")))
                    .reduce(BigDecimal.ZERO, BigDecimal::max);
            BigDecimal reported = new BigDecimal(String.format(Locale.ROOT, "%.3f",
                    curve.get("peakAllocatedBytes").asLong() / (1024.0 * 1024.0)));
            assertEquals(e.getKey() + ": " + peak + " MB, report " + reported, 0, peak.compareTo(reported));
        }
    }

    @Test
    public void reportNumbersEqualTheCsvViewsOfTheSameProfile() throws Exception {
        Path dir = tmp.newFolder("one").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--device", "npu", "--steps", "6",
                "--profile", "--profile-dir", dir.toString(), "--profile-name", "r", "--profile-export", "chrome",
                "csv", "--profile-activities", "CPU", "NPU", "MEM");
        assertEquals(r.err(), 0, r.exitCode());
        Path page = dir.resolve("report.html");
        r = LauncherProcess.run(FULL, "report", dir.resolve("r.trace.json.gz").toString(), "-o", page.toString());
        assertEquals(r.err(), 0, r.exitCode());
        assertEquals("report written: " + page + " (1 trace)", r.out().strip());
        JsonNode data = embedded(page);
        assertEquals(1, data.get("traces").size());
        assertMatchesCsv(data.get("traces").get(0), dir.resolve("r_csv"));
        assertRendersInChromium(page, "overview", "operators", "kernels", "timeline", "memory");
    }

    @Test
    public void aCpuOnlyStepSplitsItsHostTimeAsTheCsvView() throws Exception {
        Path dir = tmp.newFolder("cpu").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "matmul", "--steps", "5", "--profile",
                "--profile-dir", dir.toString(), "--profile-name", "c", "--profile-export", "chrome", "csv");
        assertEquals(r.err(), 0, r.exitCode());
        Path page = dir.resolve("c.html");
        r = LauncherProcess.run(FULL, "report", dir.resolve("c.trace.json.gz").toString(), "-o", page.toString());
        assertEquals(r.err(), 0, r.exitCode());
        JsonNode trace = embedded(page).get("traces").get(0);
        List<CSVRecord> steps = csv(dir.resolve("c_csv").resolve("step_trace_time.csv"));
        assertEquals(steps.size(), trace.get("steps").size());
        for (int i = 0; i < steps.size(); i++) {
            CSVRecord row = steps.get(i);
            JsonNode s = trace.get("steps").get(i);
            assertEquals("cpu", row.get("Device_id"));
            // without device work, Computing is the host's busy time of the step: CPU op and runtime here
            assertEquals(row.toString(), nanos(row.get("Computing")),
                    s.get("cpuOpNanos").asLong() + s.get("runtimeNanos").asLong());
            assertEquals(row.toString(), nanos(row.get("Free")), s.get("otherNanos").asLong());
        }
        Map<String, long[]> byName = new LinkedHashMap<>();
        for (CSVRecord row : csv(dir.resolve("c_csv").resolve("operator_details.csv"))) {
            long[] sums = byName.computeIfAbsent(row.get("Name"), k -> new long[2]);
            sums[0] += nanos(row.get("Host Self Duration(us)"));
            sums[1] += nanos(row.get("Host Total Duration(us)"));
        }
        Map<String, JsonNode> ops = byKey(operators(trace.get("ops")), "name");
        assertEquals(byName.keySet(), ops.keySet());
        byName.forEach((name, sums) -> {
            assertEquals(name, sums[0], ops.get(name).get("selfNanos").asLong());
            assertEquals(name, sums[1], ops.get(name).get("totalNanos").asLong());
        });
        assertRendersInChromium(page, "overview", "operators", "timeline");
    }

    @Test
    public void aDirectoryOfRanksGetsThePerRankViewAndEachRankMatchesItsCsv() throws Exception {
        Path dir = tmp.newFolder("ranks").toPath();
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        LauncherProcess.Result r = LauncherProcess.run(FULL, "launch", "--nproc", "2", "--master-port",
                Integer.toString(port), "mlp-train", "--ddp", "--device", "npu", "--steps", "6", "--profile",
                "--profile-dir", dir.toString(), "--profile-name", "job", "--profile-export", "chrome", "csv",
                "--profile-activities", "CPU", "NPU", "MEM");
        assertEquals(r.err(), 0, r.exitCode());
        Path page = dir.resolve("ranks.html");
        r = LauncherProcess.run(FULL, "report", dir.toString(), "-o", page.toString());
        assertEquals(r.err(), 0, r.exitCode());
        JsonNode data = embedded(page);
        assertEquals(2, data.get("ranks").size());
        for (int rank = 0; rank < 2; rank++) {
            JsonNode trace = data.get("traces").get(rank);
            assertEquals(rank, trace.get("rank").asInt());
            assertEquals("job-rank" + rank + ".trace.json.gz", trace.get("source").asText());
            assertTrue("communication kernels of rank " + rank, trace.get("kernels").findValues("type").stream()
                    .anyMatch(t -> t.asText().equals("communication")));
            assertMatchesCsv(trace, dir.resolve("job-rank" + rank + "_csv"));
            JsonNode stats = data.get("ranks").get(rank);
            long sum = 0;
            for (JsonNode s : trace.get("steps")) {
                sum += s.get("durationNanos").asLong();
            }
            assertEquals(sum / trace.get("steps").size(), stats.get("meanStepNanos").asLong());
        }
        int slowest = data.get("slowestRank").asInt();
        assertTrue(data.get("ranks").get(slowest).get("meanStepNanos").asLong()
                >= data.get("ranks").get(1 - slowest).get("meanStepNanos").asLong());

        // the two ranks are runs of runs.jsonl: compare reads them by id prefix
        String[] byRank = new String[2];
        for (String line : Files.readAllLines(dir.resolve("runs.jsonl"))) {
            JsonNode run = new ObjectMapper().readTree(line);
            byRank[run.get("rank").asInt()] = run.get("run_id").asText();
        }
        List<String> ids = List.of(byRank);
        Path delta = dir.resolve("delta.csv");
        r = LauncherProcess.run(FULL, "compare", ids.get(0).substring(0, 6), ids.get(1).substring(0, 6), "--dir",
                dir.toString(), "--format", "csv", "-o", delta.toString());
        assertEquals(r.err(), 0, r.exitCode());
        Map<String, JsonNode> ops0 = byKey(hostRows(data.get("traces").get(0).get("ops")), "name");
        int checked = 0;
        for (CSVRecord row : csv(delta)) {
            if (row.get("section").equals("ops") && row.get("metric").equals("selfNanos")) {
                assertEquals(row.toString(), ops0.get(row.get("name")).get("selfNanos").asLong(),
                        Long.parseLong(row.get("a")));
                checked++;
            }
        }
        assertEquals(ops0.size(), checked);
        r = LauncherProcess.run(FULL, "compare", ids.get(0), ids.get(1), "--dir", dir.toString());
        assertEquals(r.err(), 0, r.exitCode());
        assertTrue(r.out(), r.out().startsWith("A: " + ids.get(0) + " (job-rank0.trace.json.gz, rank 0, 3 steps)"));
        assertTrue(r.out(), r.out().contains("Peak memory per device"));
        // the Distributed view (several ranks) beside the others
        assertRendersInChromium(page, "overview", "distributed", "memory");
    }

    /**
     * Loads the page in headless Chromium, when installed, once per view of its first trace (the board's script opens
     * the view a link names), and checks that each view drew with no script error, the Overview with its charts.
     */
    private void assertRendersInChromium(Path page, String... views) throws Exception {
        Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
        assumeTrue("no Chromium at " + chromium + " (set CHROMIUM or apt-get install chromium)",
                Files.isExecutable(chromium));
        for (String view : views) {
            Path dom = tmp.newFile().toPath();
            Path log = tmp.newFile().toPath();
            Process p = new ProcessBuilder(chromium.toString(), "--headless", "--disable-gpu", "--no-sandbox",
                    "--user-data-dir=" + tmp.newFolder().toPath(), "--virtual-time-budget=10000", "--dump-dom",
                    page.toUri() + "#run=trace-0&view=" + view).redirectOutput(dom.toFile())
                    .redirectError(log.toFile()).start();
            assertTrue("chromium did not finish within 120 s", p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(Files.readString(log), 0, p.exitValue());
            Matcher root = Pattern.compile("<html[^>]*>").matcher(Files.readString(dom));
            assertTrue(root.find());
            assertTrue(root.group(), root.group().contains("data-board=\"ready\""));
            assertTrue(root.group(), root.group().contains("data-board-view=\"trace-0/" + view + "\""));
            if (view.equals("overview")) {
                assertFalse(root.group(), root.group().contains("data-board-charts=\"0\""));
            }
        }
    }
}
