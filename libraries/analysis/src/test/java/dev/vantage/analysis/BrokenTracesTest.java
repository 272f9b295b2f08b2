package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The corpus of damaged traces ({@code broken/}, made from the real traces in {@code real/} by its
 * {@code make_corpus.py}) through {@code report}, {@code compare}, {@code convert} and {@code analyze}, as a user runs
 * them: each file gives its readable part and one line that says what was repaired and skipped, with the byte offset
 * of the first damage; with {@code --strict}, one line refusing it at that byte, exit code 2, and nothing written. The
 * offsets expected are found in the file's own bytes, not by the reader.
 */
@RunWith(Parameterized.class)
public class BrokenTracesTest {

    /** One file of the corpus: the real trace it was made from, what its account says, where its damage is. */
    private record Case(String file, String original, String account, ToLongFunction<byte[]> offset,
            EventsRead events) {
        @Override
        public String toString() {
            return file;
        }
    }

    /** How many events the damaged file gives, against its original's. */
    private enum EventsRead { ALL, ONE_FEWER, SOME }

    @Parameters(name = "{0}")
    public static List<Object[]> corpus() {
        List<Case> cases = List.of(
                new Case("unescaped-quote.json.gz", "cuda-event-sync-multi-stream.json.gz",
                        "repaired 8 unescaped quotes; first at byte %d (an unescaped quote)",
                        b -> at(b, "\"name\": \"{\"device") + "\"name\": \"{".length(), EventsRead.ALL),
                new Case("key-without-value.json.gz", "rocm-mi250.json.gz",
                        "repaired 1 key without a value; first at byte %d (a key without a value)",
                        b -> at(b, "\"Process Group Description\": ,") + "\"Process Group Description\": ".length(),
                        EventsRead.ALL),
                new Case("cut-off.json", "cuda-event-sync-multi-stream.json.gz",
                        "skipped 1 event cut off by the end of the file; first at byte %d (an event cut off",
                        b -> b.length, EventsRead.SOME),
                new Case("cut-off-gzip.json.gz", "rocm-mi250.json.gz",
                        "skipped 1 event cut off by the end of the file; first at byte %d (an event cut off",
                        b -> b.length, EventsRead.SOME),
                new Case("nan-infinity.json.gz", "cuda-event-sync-multi-stream.json.gz",
                        "repaired 2 NaNs or Infinities; first at byte %d (a NaN or Infinity)",
                        b -> Math.min(at(b, "NaN"), at(b, "Infinity")), EventsRead.ONE_FEWER),
                new Case("duplicate-key.json.gz", "cuda-event-sync-multi-stream.json.gz",
                        "repaired 1 duplicate key; first at byte %d (a duplicate key)",
                        b -> at(b, "\"dur\": 292"), EventsRead.ALL),
                new Case("overlapping.json.gz", "rocm-mi250.json.gz",
                        "repaired 1 overlapping event; --strict", null, EventsRead.ALL),
                new Case("legacy-unclosed.json", "torch-1.13-legacy.trace.json", null, null, EventsRead.ALL),
                new Case("legacy-trailing-comma.json", "torch-1.13-legacy.trace.json", null, null, EventsRead.ALL),
                new Case("legacy-cut-off.json", "torch-1.13-legacy.trace.json",
                        "skipped 1 event cut off by the end of the file; first at byte %d (an event cut off",
                        b -> b.length, EventsRead.SOME),
                new Case("damaged-event.json.gz", "cuda-event-sync-multi-stream.json.gz",
                        "skipped 1 damaged event; first at byte %d (a damaged event)",
                        b -> lastBefore(b, '{', at(b, "\"pid\" 3727853 3727853")), EventsRead.ONE_FEWER));
        List<Object[]> params = new ArrayList<>();
        cases.forEach(c -> params.add(new Object[] {c}));
        return params;
    }

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final Case c;

    public BrokenTracesTest(Case c) {
        this.c = c;
    }


    private Path resource(String dir, String name) throws IOException {
        Path target = tmp.getRoot().toPath().resolve(dir + "-" + name);
        try (InputStream in = getClass().getResourceAsStream(dir + "/" + name)) {
            Files.copy(in, target);
        }
        return target;
    }

    /** The file's bytes as a reader sees them: a gzip file's uncompressed content, as far as it goes. */
    private static byte[] content(Path file) throws IOException {
        byte[] raw = Files.readAllBytes(file);
        if (raw.length < 2 || raw[0] != 0x1f || raw[1] != (byte) 0x8b) {
            return raw;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            byte[] buf = new byte[4096];
            for (int n; (n = in.read(buf)) > 0;) {
                out.write(buf, 0, n);
            }
        } catch (EOFException cut) {
            // a gzip file cut short: its content ends here
        }
        return out.toByteArray();
    }

    private static long at(byte[] bytes, String what) {
        int i = new String(bytes, StandardCharsets.ISO_8859_1).indexOf(what);
        if (i < 0) {
            throw new AssertionError(what + " is not in the file");
        }
        return i;
    }

    private static long lastBefore(byte[] bytes, char c, long index) {
        return new String(bytes, StandardCharsets.ISO_8859_1).lastIndexOf(c, (int) index);
    }

    private String expectedLine(Path file) throws IOException {
        if (c.account == null) {
            return null;
        }
        String account = c.file.endsWith(".gz") ? c.account.replace("first at byte %d",
                "first at byte %d of its uncompressed content") : c.account;
        // an overlap is found once the file is read, without its offset
        return "vantage: " + file + ": " + (c.offset == null ? c.account
                : String.format(account, c.offset.applyAsLong(content(file))));
    }

    /**
     * Asserts that a verb read the file (exit 0) and said what it repaired and skipped in the one line expected of
     * the file, or nothing for a sound one; returns whether it said a line.
     */
    private boolean readWithItsAccount(VerbRun r, Path file) throws IOException {
        assertEquals(r.err(), 0, r.code());
        String line = expectedLine(file);
        if (line == null) {
            assertEquals("", r.err());
            return false;
        }
        assertEquals(r.err(), 1, r.err().lines().count());
        assertTrue(r.err() + " vs " + line, r.err().startsWith(line));
        return true;
    }

    @Test
    public void reportGivesTheReadablePartWithOneLineOrRefusesWithTheOffsetWhenStrict() throws IOException {
        Path file = resource("broken", c.file);
        Path page = tmp.getRoot().toPath().resolve("report.html");
        VerbRun r = VerbRun.of("report", file.toString(), "-o", page.toString(), "--dir", tmp.getRoot().toString());
        if (readWithItsAccount(r, file)) {
            assertTrue(r.err(), r.err().strip().endsWith("; --strict refuses such a file"));
        }
        assertTrue(Files.size(page) > 0);

        Path strictPage = tmp.getRoot().toPath().resolve("strict.html");
        VerbRun strict = VerbRun.of("report", file.toString(), "-o", strictPage.toString(), "--strict", "--dir",
                tmp.getRoot().toString());
        if (c.account == null) {
            assertEquals(strict.err(), 0, strict.code());
        } else {
            assertEquals(strict.err(), 2, strict.code());
            assertEquals(strict.err(), 1, strict.err().lines().count());
            assertTrue(strict.err(), strict.err().startsWith("vantage: " + file + " is damaged"
                    + (c.offset == null ? ": " : " at byte " + c.offset.applyAsLong(content(file)))));
            assertFalse("nothing written", Files.exists(strictPage));
        }
    }

    @Test
    public void theReadablePartIsWhatComesBeforeAndAroundTheDamage() throws IOException {
        Path file = resource("broken", c.file);
        TraceSummary broken = TraceReader.summary(file);
        TraceSummary original = TraceReader.summary(resource("real", c.original));
        switch (c.events) {
            case ALL -> assertEquals(original.events(), broken.events());
            case ONE_FEWER -> assertEquals(original.events() - 1, broken.events());
            default -> assertTrue(broken.events() + " of " + original.events(),
                    broken.events() > 0 && broken.events() < original.events());
        }
    }

    @Test
    public void compareReadsItAgainstItsOriginal() throws IOException {
        Path file = resource("broken", c.file);
        Path original = resource("real", c.original);
        VerbRun r = VerbRun.of("compare", original.toString(), file.toString(), "--format", "json", "--dir",
                tmp.getRoot().toString());
        assertEquals(r.err(), 0, r.code());
        assertEquals(r.err(), c.account == null ? 0 : 1, r.err().lines().count());
        assertTrue(r.out(), r.out().startsWith("{"));
        VerbRun strict = VerbRun.of("compare", original.toString(), file.toString(), "--strict", "--dir",
                tmp.getRoot().toString());
        assertEquals(strict.err(), c.account == null ? 0 : 2, strict.code());
    }

    @Test
    public void convertWritesItsTablesAndAnalyzeReadsThem() throws IOException {
        Path file = resource("broken", c.file);
        Path out = tmp.getRoot().toPath().resolve("parquet");
        VerbRun r = VerbRun.of("convert", file.toString(), "-o", out.toString());
        readWithItsAccount(r, file);
        VerbRun analyze = VerbRun.of("analyze", out.toString(), "--format", "json");
        assertEquals(analyze.err(), 0, analyze.code());
        assertTrue(analyze.out(), analyze.out().contains("\"step_times\"") || analyze.out().contains("top_ops"));

        Path strictOut = tmp.getRoot().toPath().resolve("strict-parquet");
        VerbRun strict = VerbRun.of("convert", file.toString(), "-o", strictOut.toString(), "--strict");
        if (c.account == null) {
            assertEquals(strict.err(), 0, strict.code());
        } else {
            assertEquals(strict.err(), 2, strict.code());
            assertTrue(strict.err(), strict.err().startsWith("vantage: " + file + " is damaged"
                    + (c.offset == null ? ": " : " at byte ")));
            assertFalse("no folder left behind", Files.exists(strictOut));
        }
    }

    @Test
    public void aFileWithNothingReadableIsRefusedEitherWay() throws IOException {
        Path file = resource("broken", "not-json.json");
        String page = tmp.getRoot().toPath().resolve("x.html").toString();
        for (VerbRun r : List.of(VerbRun.of("report", file.toString(), "-o", page, "--dir", tmp.getRoot().toString()),
                VerbRun.of("report", file.toString(), "-o", page, "--strict", "--dir", tmp.getRoot().toString()))) {
            assertEquals(r.err(), 2, r.code());
            assertEquals("vantage: " + file + " is damaged at byte 0: it is not a JSON object or array\n", r.err());
        }
    }
}
