package dev.vantage.trace.engine.read;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The breakages torch really writes, each in a small Kineto trace: what the reader repairs, what it skips, the one
 * line that says so with the first byte offset, and the strict refusal at that offset.
 */
public class TraceRepairsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static final String HEAD = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
    private static final String TAIL = "\n  ],\n  \"traceName\": \"t\"\n}\n";

    private static String op(String name, long ts, long dur) {
        return "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 7, \"tid\": 7,\n"
                + "    \"ts\": " + ts + ", \"dur\": " + dur + ",\n    \"args\": {\"External id\": " + ts + "}\n  }";
    }

    private Path write(String text) throws IOException {
        Path f = tmp.newFile("t" + System.nanoTime() + ".json").toPath();
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return f;
    }

    private static List<String> names(TraceSummary s) {
        return s.ops().stream().map(OpStats::name).sorted().toList();
    }

    @Test
    public void readsAStringWithTheWritersUnescapedQuotes() throws IOException {
        String text = HEAD + op("aten::mm", 10, 5) + ",\n" + op("{\"device\": \"cpu\", \"dtype\": \"float32\"}(12): run", 20, 5)
                + ",\n" + op("aten::add", 30, 5) + TAIL;
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(text), account);
        assertEquals(List.of("aten::add", "aten::mm", "{\"device\": \"cpu\", \"dtype\": \"float32\"}(12): run"),
                names(s));
        assertEquals(8, account.count(TraceRepairs.Kind.UNESCAPED_QUOTE));
        assertEquals(text.indexOf("{\"device") + 1, account.firstOffset());
        DamagedTraceException e = assertThrows(DamagedTraceException.class,
                () -> TraceReader.summary(write(text), new TraceRepairs(true)));
        assertEquals(text.indexOf("{\"device") + 1, e.offset());
        assertTrue(e.getMessage(), e.getMessage().endsWith(" is damaged at byte " + e.offset()
                + ": an unescaped quote"));
    }

    @Test
    public void readsAKeyWithoutAValueAsNull() throws IOException {
        String text = HEAD + op("aten::mm", 10, 5).replace("\"args\": {", "\"args\": {\"Process Group Description\": ,")
                + TAIL;
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(text), account);
        assertEquals(List.of("aten::mm"), names(s));
        assertEquals(1, account.count(TraceRepairs.Kind.MISSING_VALUE));
        assertEquals(text.indexOf(": ,") + 2, account.firstOffset());
    }

    @Test
    public void keepsEverythingBeforeTheCutOfAKilledWriter() throws IOException {
        String whole = HEAD + op("a", 10, 5) + ",\n" + op("b", 20, 5) + ",\n" + op("c", 30, 5) + TAIL;
        String cut = whole.substring(0, whole.indexOf("\"name\": \"c\"") + 5);
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(cut), account);
        assertEquals(List.of("a", "b"), names(s));
        assertEquals(1, account.count(TraceRepairs.Kind.CUT_OFF));
        assertTrue(account.line("t.json"), account.line("t.json").contains("skipped 1 event cut off by the end"));
        DamagedTraceException e = assertThrows(DamagedTraceException.class,
                () -> TraceReader.summary(write(cut), new TraceRepairs(true)));
        assertEquals(cut.length(), e.offset());
    }

    @Test
    public void readsNaNAsNoValue() throws IOException {
        String text = HEAD + op("a", 10, 5) + ",\n" + op("b", 20, 5).replace("\"dur\": 5", "\"dur\": NaN") + TAIL;
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(text), account);
        assertEquals(List.of("a", "b"), names(s));
        assertEquals(1, account.count(TraceRepairs.Kind.NOT_A_NUMBER));
    }

    @Test
    public void keepsTheLastOfADuplicateKey() throws IOException {
        String text = HEAD + op("a", 10, 5).replace("\"dur\": 5", "\"dur\": 5, \"dur\": 7") + TAIL;
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(text), account);
        assertEquals(7000, s.ops().get(0).totalNanos());
        assertEquals(1, account.count(TraceRepairs.Kind.DUPLICATE_KEY));
        assertEquals(text.indexOf("\"dur\": 7"), account.firstOffset());
    }

    @Test
    public void readsAnEventThatOverlapsItsEnclosingOneAsItsSibling() throws IOException {
        // b starts inside a and ends after it: b is a's sibling, as torch's own tree takes it; an end 1 us after its
        // enclosing event's is the legacy format's rounding, not an overlap
        String text = HEAD + op("a", 10, 10) + ",\n" + op("b", 15, 10) + ",\n" + op("c", 30, 10) + ",\n"
                + op("d", 32, 9) + TAIL;
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(text), account);
        OpStats a = s.ops().stream().filter(o -> o.name().equals("a")).findFirst().orElseThrow();
        OpStats b = s.ops().stream().filter(o -> o.name().equals("b")).findFirst().orElseThrow();
        assertEquals(10000, a.selfNanos());
        assertEquals(10000, b.selfNanos());
        assertEquals(1, account.count(TraceRepairs.Kind.OVERLAP));
        // which event overlaps is found after the read, when the file's offsets are gone: the count has none
        assertEquals(-1, account.firstOffset());
        assertEquals("t.json: repaired 1 overlapping event; --strict refuses such a file", account.line("t.json"));
        DamagedTraceException e = assertThrows(DamagedTraceException.class,
                () -> TraceReader.summary(write(text), new TraceRepairs(true)));
        assertEquals(-1, e.offset());
        assertTrue(e.getMessage(), e.getMessage().endsWith(" is damaged: an overlapping event"));
    }

    @Test
    public void readsTheLegacyArrayWithoutItsEndAsTheTraceEventFormatAllows() throws IOException {
        String events = "[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"tid\": 1, \"pid\": \"CPU functions\"},"
                + " {\"name\": \"b\", \"ph\": \"X\", \"ts\": 4, \"dur\": 2, \"tid\": 1, \"pid\": \"CPU functions\"}";
        for (String text : List.of(events, events + ",", events + ",\n")) {
            TraceRepairs account = new TraceRepairs(true);
            TraceSummary s = TraceReader.summary(write(text), account);
            assertEquals(text, List.of("a", "b"), names(s));
            assertNull(account.line("x"));
        }
    }

    @Test
    public void skipsAnEventWithoutAReadingAndGoesOn() throws IOException {
        String text = HEAD + op("a", 10, 5) + ",\n" + op("b", 20, 5).replace("\"pid\": 7", "\"pid\" 7 7 :")
                + ",\n" + op("c", 30, 5) + TAIL;
        TraceRepairs account = new TraceRepairs(false);
        TraceSummary s = TraceReader.summary(write(text), account);
        assertEquals(List.of("a", "c"), names(s));
        assertEquals(1, account.count(TraceRepairs.Kind.DAMAGED_EVENT));
    }

    @Test
    public void skipsAnEventWhoseTimeIsNoNumberAndRefusesItStrictlyAtItsOffset() throws IOException {
        // found by fuzzing: a time that is no number of microseconds refused the whole file without naming it
        for (String bad : List.of("\"10$0\"", "\"99999999999999999999\"")) {
            String text = HEAD + op("a", 10, 5) + ",\n" + op("b", 20, 5).replace("\"ts\": 20", "\"ts\": " + bad)
                    + ",\n" + op("c", 30, 5) + TAIL;
            TraceRepairs account = new TraceRepairs(false);
            TraceSummary s = TraceReader.summary(write(text), account);
            assertEquals(bad, List.of("a", "c"), names(s));
            assertEquals(bad, 1, account.count(TraceRepairs.Kind.DAMAGED_EVENT));
            Path file = write(text);
            DamagedTraceException e = assertThrows(DamagedTraceException.class,
                    () -> TraceReader.summary(file, new TraceRepairs(true)));
            assertEquals(bad, text.indexOf(bad) + bad.length(), e.offset(), 64);
            assertTrue(e.getMessage(), e.getMessage().startsWith(file.toString()));
        }
    }

    @Test
    public void refusesAGzipFileWhoseHeaderDoesNotReadNamingTheFile() throws IOException {
        // found by fuzzing: gzip's magic bytes, then a compression method other than deflate, escaped as
        // "Unsupported compression method" naming no file; a header cut after its magic bytes as an EOFException
        byte[] method = {0x1f, (byte) 0x8b, 9, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3};
        byte[] cut = {0x1f, (byte) 0x8b, 8};
        for (byte[] bytes : List.of(method, cut)) {
            for (boolean strict : new boolean[] {false, true}) {
                Path file = tmp.newFile("t" + System.nanoTime() + ".json.gz").toPath();
                Files.write(file, bytes);
                DamagedTraceException e = assertThrows(DamagedTraceException.class,
                        () -> TraceReader.summary(file, new TraceRepairs(strict)));
                assertEquals(0, e.offset());
                assertTrue(e.getMessage(), e.getMessage().startsWith(file + " is damaged at byte 0: it starts as"
                        + " gzip but its gzip header does not read ("));
                assertEquals(e.getMessage(), -1, e.getMessage().indexOf('\n'));
            }
        }
    }

    @Test
    public void refusesAnOnnxRuntimeProfileThatHoldsNoEventAsDamagedAtItsOffset() throws IOException {
        // before, a plain IOException: report took the bad input for a failure of its own (exit 1, not 2)
        String run = "{\"cat\" : \"Session\",\"pid\" :1,\"tid\" :1,\"dur\" :5,\"ts\" :1,\"ph\" : \"X\","
                + "\"name\" :\"model_run\",\"args\" : {}}";
        String other = "[\n" + run + ",\n42\n]\n";
        String broken = "[\n" + run + ",\n{\"cat\" : \"Node\", \"ts\" : }\n]\n";
        for (String text : List.of(other, broken)) {
            Path file = write(text);
            DamagedTraceException e = assertThrows(DamagedTraceException.class,
                    () -> TraceReader.summary(file, new TraceRepairs(false)));
            long at = text.equals(other) ? text.indexOf("42") : text.indexOf("}\n]");
            assertEquals(e.getMessage(), at, e.offset(), 1);
            assertTrue(e.getMessage(), e.getMessage().startsWith(file + " is damaged at byte " + e.offset() + ": "));
        }
    }
}
