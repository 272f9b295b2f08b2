package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.Reader;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;

import dev.vantage.perfetto.format.PerfettoTrace;
import dev.vantage.perfetto.format.PerfettoTraceReader;

/**
 * One profiled run, six views of its steps: the csv exporter's {@code step_trace_time.csv}, TensorBoard's
 * {@code step_time_ms} scalars, the Parquet {@code steps} table, Perfetto's {@code Step time} counter,
 * {@code vantage report}'s page and {@code vantage analyze}'s JSON give the same time for every step, because all of them apply the trace model's one
 * step rule. Each file is read back with a reader of its own (Commons CSV, the protobuf wire format, DuckDB,
 * Jackson), not with the code that wrote it.
 */
public class StepTimesIT {

    private static final Path FULL = Distributions.home("full");
    private static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"vantage-data\">(.*?)</script>", Pattern.DOTALL);

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Path dir;

    @BeforeClass
    public static void profileOneRunInEveryFormat() throws Exception {
        dir = tmp.newFolder("steps").toPath();
        // on the emulated NPU: device work runs asynchronously, so steps end after their kernels are attributed
        LauncherProcess.Result run = LauncherProcess.run(FULL, "run", "mlp-train", "--device", "npu", "--steps", "7",
                "--profile", "--profile-wait", "1", "--profile-warmup", "1", "--profile-active", "4",
                "--profile-export", "chrome", "csv", "tensorboard", "parquet", "perfetto", "--profile-dir", dir.toString(),
                "--profile-name", "st");
        assertEquals(run.err(), 0, run.exitCode());
    }

    @Test
    public void everyViewGivesTheSameTimeForEveryStep() throws Exception {
        Map<Long, Long> parquet = parquet();
        assertEquals(List.of(2L, 3L, 4L, 5L), List.copyOf(parquet.keySet()));
        assertEquals("csv", parquet, csv());
        assertEquals("report", parquet, report());
        assertEquals("analyze", parquet, analyze());
        assertEquals("perfetto's Step time counter", parquet.keySet().stream().map(parquet::get).toList(),
                perfetto());
        Map<Long, Float> tensorboard = tensorboard();
        assertEquals(parquet.keySet(), tensorboard.keySet());
        for (Map.Entry<Long, Long> e : parquet.entrySet()) {
            // a float of milliseconds: about seven significant digits
            assertEquals("tensorboard step " + e.getKey(), e.getValue() / 1e6, tensorboard.get(e.getKey()),
                    e.getValue() / 1e6 * 1e-6);
        }
    }

    @Test
    public void reportAndAnalyzeShareOneStragglerDefinition() throws Exception {
        Path job = tmp.newFolder("job").toPath();
        LauncherProcess.Result launch = LauncherProcess.run(FULL, "launch", "--nproc", "4", "--master-port",
                Integer.toString(freePort()), "mlp-train", "--ddp", "--device", "npu", "--steps", "5", "--profile",
                "--profile-export", "chrome", "parquet", "--profile-dir", job.toString(), "--profile-name", "j");
        assertEquals(launch.err(), 0, launch.exitCode());
        Path page = job.resolve("ranks.html");
        LauncherProcess.Result report = LauncherProcess.run(FULL, "report", job.toString(), "-o", page.toString());
        assertEquals(report.err(), 0, report.exitCode());
        Matcher m = DATA.matcher(Files.readString(page));
        assertTrue(m.find());
        JsonNode ranks = new ObjectMapper().readTree(m.group(1)).get("ranks");
        LauncherProcess.Result analyze = LauncherProcess.run(FULL, "analyze", job.toString(), "--format", "json");
        assertEquals(analyze.err(), 0, analyze.exitCode());
        Map<Integer, JsonNode> rows = new TreeMap<>();
        for (JsonNode row : new ObjectMapper().readTree(analyze.out()).get("stragglers")) {
            rows.put(row.get("rank").asInt(), row);
        }
        assertEquals(4, ranks.size());
        assertEquals(4, rows.size());
        for (JsonNode rank : ranks) {
            JsonNode row = rows.get(rank.get("rank").asInt());
            assertEquals(row.get("mean_step_ns").asDouble(), rank.get("meanStepNanos").asDouble(), 1e-6);
            assertEquals(row.get("vs_median").asDouble(), rank.get("ratioToMedian").asDouble(), 1e-12);
            assertEquals(row.get("straggler").asBoolean(), rank.get("straggler").asBoolean());
        }
    }

    private static int freePort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The .pftrace's {@code Step time} counter (milliseconds as a double), as whole nanoseconds, in step order. */
    private static List<Long> perfetto() throws Exception {
        PerfettoTrace trace = PerfettoTraceReader.read(dir.resolve("st.pftrace"));
        return trace.counters().stream().filter(c -> trace.track(c.trackUuid()).name().equals("Step time"))
                .sorted(java.util.Comparator.comparingLong(PerfettoTrace.Counter::timeNanos))
                .map(c -> Math.round(c.value() * 1e6)).toList();
    }

    /** steps.parquet, read by DuckDB: step -> duration_ns. */
    private static Map<Long, Long> parquet() throws Exception {
        Path file = dir.resolve("st_parquet").resolve("steps.parquet");
        Map<Long, Long> steps = new TreeMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT step, duration_ns, end_ns - start_ns, span_end_ns <= end_ns"
                        + " FROM read_parquet('" + file + "') ORDER BY step")) {
            while (r.next()) {
                assertEquals(r.getLong(2), r.getLong(3));
                assertTrue("a step's time covers its span", r.getBoolean(4));
                steps.put(r.getLong(1), r.getLong(2));
            }
        }
        return steps;
    }

    /** step_trace_time.csv: Computing + Communication(Not Overlapped) + Free, as exact nanoseconds. */
    private static Map<Long, Long> csv() throws Exception {
        Map<Long, Long> steps = new TreeMap<>();
        try (Reader in = Files.newBufferedReader(dir.resolve("st_csv").resolve("step_trace_time.csv"))) {
            for (CSVRecord r : CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(in)) {
                steps.put(Long.parseLong(r.get("Step")), nanos(r.get("Computing"))
                        + nanos(r.get("Communication(Not Overlapped)")) + nanos(r.get("Free")));
            }
        }
        return steps;
    }

    /** vantage report's page: the embedded data's steps. */
    private static Map<Long, Long> report() throws Exception {
        Path page = dir.resolve("report.html");
        LauncherProcess.Result r = LauncherProcess.run(FULL, "report", dir.resolve("st.trace.json.gz").toString(),
                "-o", page.toString());
        assertEquals(r.err(), 0, r.exitCode());
        Matcher m = DATA.matcher(Files.readString(page));
        assertTrue(m.find());
        Map<Long, Long> steps = new TreeMap<>();
        for (JsonNode s : new ObjectMapper().readTree(m.group(1)).at("/traces/0/steps")) {
            steps.put(s.get("step").asLong(), s.get("durationNanos").asLong());
        }
        return steps;
    }

    /** vantage analyze --format json: the step_time rows. */
    private static Map<Long, Long> analyze() throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(FULL, "analyze", dir.toString(), "--format", "json");
        assertEquals(r.err(), 0, r.exitCode());
        Map<Long, Long> steps = new TreeMap<>();
        for (JsonNode row : new ObjectMapper().readTree(r.out()).get("step_time")) {
            steps.put(row.get("step").asLong(), row.get("step_ns").asLong());
        }
        return steps;
    }

    /** The run's tfevents file: step -> step_time_ms, decoded from TFRecord framing and the Event protobuf. */
    private static Map<Long, Float> tensorboard() throws Exception {
        Path events;
        try (Stream<Path> s = Files.list(dir.resolve("st"))) {
            events = s.filter(p -> p.getFileName().toString().startsWith("events.out.tfevents.")).findFirst()
                    .orElseThrow();
        }
        Map<Long, Float> steps = new TreeMap<>();
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(events)).order(ByteOrder.LITTLE_ENDIAN);
        while (b.remaining() > 0) {
            // a TFRecord: length, its masked CRC, the data, its masked CRC
            long length = b.getLong();
            b.getInt();
            byte[] data = new byte[(int) length];
            b.get(data);
            b.getInt();
            long step = -1;
            String tag = null;
            float value = Float.NaN;
            CodedInputStream event = CodedInputStream.newInstance(data);
            for (int t = event.readTag(); t != 0; t = event.readTag()) {
                switch (WireFormat.getTagFieldNumber(t)) {
                    case 2 -> step = event.readInt64();
                    case 5 -> {
                        CodedInputStream summary = event.readBytes().newCodedInput();
                        for (int st = summary.readTag(); st != 0; st = summary.readTag()) {
                            if (WireFormat.getTagFieldNumber(st) != 1) {
                                summary.skipField(st);
                                continue;
                            }
                            CodedInputStream v = summary.readBytes().newCodedInput();
                            for (int vt = v.readTag(); vt != 0; vt = v.readTag()) {
                                switch (WireFormat.getTagFieldNumber(vt)) {
                                    case 1 -> tag = v.readString();
                                    case 2 -> value = v.readFloat();
                                    default -> v.skipField(vt);
                                }
                            }
                        }
                    }
                    default -> event.skipField(t);
                }
            }
            if ("step_time_ms".equals(tag)) {
                steps.put(step, value);
            }
        }
        return steps;
    }

    private static long nanos(String micros) {
        return new BigDecimal(micros).movePointRight(3).longValueExact();
    }
}
