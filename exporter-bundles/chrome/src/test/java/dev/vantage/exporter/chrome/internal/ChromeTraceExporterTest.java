package dev.vantage.exporter.chrome.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceThread;

/** Writes real files and reads them back with Jackson's tree model. */
public class ChromeTraceExporterTest {

    private static final long START = FakeTrace.START;
    private static final String HOSTILE = "q\"uote \\back\nline \u00e9\u4e2d \u0001ctl";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final ChromeTraceExporter exporter = new ChromeTraceExporter();

    private static Trace trace(List<Ev> events) {
        return new FakeTrace(events, List.of(new TraceThread(1, "main", 0), new TraceThread(7, HOSTILE, 3)),
                List.of(), Map.of("vantage.dropped_events", "3"));
    }

    private static final List<Ev> EVENTS = List.of(
            Ev.host("aten::matmul", EventKind.CPU_OP, 1, 1_000, 2_500_123, 1)
                    .withSequence(17, -1)
                    .withShapes(new long[][] {{8, 16}, {}}, new String[] {"float", "Scalar"})
                    .withStack(List.of("a.B.c(B.java:3)", "a.D.e(D.java:9)")),
            Ev.host(HOSTILE, EventKind.USER_ANNOTATION, 7, 5, 7, 2),
            Ev.memory(1, 2_000, 3, -4096));

    @Test
    public void writesKinetoLayoutThatJacksonReadsBack() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("t.trace.json");
        exporter.export(trace(EVENTS), file);
        String text = Files.readString(file, StandardCharsets.UTF_8);
        JsonNode root = new ObjectMapper().readTree(text);

        List<String> keys = new ArrayList<>();
        root.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("schemaVersion", "deviceProperties", "vantage.dropped_events", "distributedInfo",
                "displayTimeUnit", "baseTimeNanoseconds", "traceEvents", "traceName"), keys);
        long base = root.get("baseTimeNanoseconds").asLong();
        // no rank: the base is the start floored to the second, so ts stays short
        assertEquals(START / 1_000_000_000L * 1_000_000_000L, base);

        JsonNode events = root.get("traceEvents");
        List<JsonNode> ops = new ArrayList<>();
        events.forEach(e -> {
            if ("X".equals(e.path("ph").asText()) && !"Trace".equals(e.path("cat").asText())) {
                ops.add(e);
            }
        });
        assertEquals(2, ops.size());
        JsonNode mm = ops.get(0);
        assertEquals("cpu_op", mm.get("cat").asText());
        assertEquals(4242, mm.get("pid").asLong());
        assertEquals(1, mm.get("tid").asLong());
        assertEquals(2500.123, mm.get("dur").asDouble(), 1e-9);
        assertEquals((START + 1_000 - base) / 1000.0, mm.get("ts").asDouble(), 1e-3);
        assertEquals(1, mm.get("args").get("External id").asLong());
        assertEquals("[[8,16],[]]", mm.get("args").get("Input Dims").toString());
        assertEquals("[\"float\",\"Scalar\"]", mm.get("args").get("Input type").toString());
        assertEquals(17, mm.get("args").get("Sequence number").asLong());
        assertEquals("a.B.c(B.java:3);a.D.e(D.java:9)", mm.get("args").get("Call stack").asText());
        assertEquals(null, ops.get(1).get("args").get("Input Dims"));
        JsonNode hostile = ops.get(1);
        assertEquals(HOSTILE, hostile.get("name").asText());
        assertEquals("user_annotation", hostile.get("cat").asText());
        assertEquals(0.007, hostile.get("dur").asDouble(), 1e-12);

        JsonNode memory = null;
        for (JsonNode e : events) {
            if ("[memory]".equals(e.path("name").asText())) {
                memory = e;
            }
        }
        assertEquals("i", memory.get("ph").asText());
        assertEquals("t", memory.get("s").asText());
        assertEquals("cpu_instant_event", memory.get("cat").asText());
        assertEquals(0, memory.get("args").get("Device Type").asInt());
        assertEquals(-1, memory.get("args").get("Device Id").asInt());
        assertEquals(-4096, memory.get("args").get("Bytes").asLong());
        assertEquals(8192 - 4096, memory.get("args").get("Total Allocated").asLong());
        assertEquals(2097152, memory.get("args").get("Total Reserved").asLong());
        assertEquals(0x7f00L, memory.get("args").get("Addr").asLong());

        assertEquals("Record Window End", events.get(events.size() - 1).get("name").asText());
        assertTrue(text.contains("\"thread 7 (" + HOSTILE.replace("\\", "\\\\").replace("\"", "\\\"")
                .replace("\n", "\\n").replace("\u0001", "\\u0001")));

        // every ts and dur is written with exactly three decimals
        Matcher m = Pattern.compile("\"(ts|dur)\":([0-9.eE+-]+)").matcher(text);
        int numbers = 0;
        while (m.find()) {
            numbers++;
            assertTrue(m.group(), m.group(2).matches("\\d+\\.\\d{3}"));
        }
        // 2 X events with ts and dur, 7 metadata events, the memory instant, the forward op's flow start, the
        // Trace span's ts and dur, and two global instants
        assertEquals(2 * 2 + 7 + 1 + 1 + 2 + 2, numbers);
    }

    @Test
    public void gzipWhenTheNameEndsInGzAndNoTemporaryFileRemains() throws IOException {
        Path dir = tmp.newFolder("out").toPath();
        Path file = exporter.defaultTarget(dir, "run-rank0");
        assertEquals(dir.resolve("run-rank0.trace.json.gz"), file);
        exporter.export(trace(EVENTS), file);
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            root = new ObjectMapper().readTree(in);
        }
        assertEquals(1, root.get("schemaVersion").asInt());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(file), s.collect(Collectors.toList()));
        }
    }

    @Test
    public void anEmptyTraceIsStillAValidTrace() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("empty.json");
        exporter.export(trace(List.of()), file);
        JsonNode events = new ObjectMapper().readTree(file.toFile()).get("traceEvents");
        assertEquals("Record Window End", events.get(events.size() - 1).get("name").asText());
    }

    @Test
    public void anUnwritableDirectoryFailsAndLeavesNothing() throws IOException {
        Path dir = tmp.newFolder("locked").toPath();
        Assume.assumeTrue("permissions are not enforced for this user", dir.toFile().setWritable(false)
                && !Files.isWritable(dir));
        try {
            assertThrows(IOException.class, () -> exporter.export(trace(EVENTS), dir.resolve("t.json")));
            try (Stream<Path> s = Files.list(dir)) {
                assertEquals(0, s.count());
            }
        } finally {
            dir.toFile().setWritable(true);
        }
    }

    @Test
    public void aTargetUnderAFileFailsWithANamedError() throws IOException {
        Path notADir = tmp.newFile("plain-file").toPath();
        IOException e = assertThrows(IOException.class,
                () -> exporter.export(trace(EVENTS), notADir.resolve("t.json")));
        assertTrue(e.toString(), e.toString().contains("plain-file"));
    }

    @Test
    public void aTraceThatFailsWhileWritingLeavesNoFileUnderTheTargetName() throws IOException {
        Path dir = tmp.newFolder("failing").toPath();
        List<Ev> poisoned = new ArrayList<>(EVENTS);
        poisoned.add(Ev.host("broken", null, 1, 0, 1, 4));   // the writer fails on the fourth event
        assertThrows(NullPointerException.class, () -> exporter.export(trace(poisoned), dir.resolve("t.json")));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.collect(Collectors.toList()));
        }
    }

}
