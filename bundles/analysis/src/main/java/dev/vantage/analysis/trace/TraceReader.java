package dev.vantage.analysis.trace;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * Reads a trace file into a {@link TraceSummary}: every Kineto JSON variant torch has written since 1.8 and the
 * legacy array torch writes without Kineto ({@link KinetoJsonReader}), plain or gzip-compressed, as well as the
 * traces of Vantage's chrome and tensorboard exporters; and Perfetto's protobuf traces ({@code .pftrace}: Vantage's
 * perfetto exporter's and torch's), by their name, through {@link PerfettoColumnsReader}, into the same columns.
 *
 * <p>Design: a reader fills {@link TraceColumns} in one streamed pass (Jackson's streaming parser, never a tree of
 * the document): complete events into primitive columns, about 60 bytes an event; {@code [memory]} events into six
 * longs each; flows and metadata are skipped. {@link Linkage} then finds each device work's launching operator
 * whichever way the trace links them, and {@link TraceAnalysis} nests each thread's events by time, as the
 * TensorBoard plugin does. Those two see only the columns, so a reader of another format feeds the same views.
 *
 * <p>Damaged files (what torch writes when a job is killed, or names an event with a quote in it): a file is read as
 * JSON first, at full speed; one that ends too soon keeps what came before the end. One that stops being JSON before
 * its end is read again through {@link JsonRepairStream}, which repairs what has one reading and skips what has
 * none. {@link TraceRepairs} counts both, with the first byte offset, or refuses the file at the first damage when
 * strict. The methods are static and thread-safe.
 */
public final class TraceReader {

    /** The most points a {@link MemoryCurve} keeps. */
    public static final int MAX_CURVE_POINTS = 2000;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE)
                    .maxNestingDepth(10_000).build())
            .build();

    private TraceReader() {
    }

    /**
     * Reads and summarises a trace file, repairing what has one reading and skipping what has none
     * ({@link TraceRepairs}); the account of that is lost: use {@link #read(Path, TraceRepairs)} to print it.
     *
     * @param file a {@code .json} or {@code .json.gz} trace (gzip is recognised by its magic bytes), or a
     *     {@code .pftrace} (plain or {@code .gz})
     * @return the summary
     * @throws IOException if the file cannot be read; {@link DamagedTraceException} if it has no readable part,
     *     naming the file and the byte offset
     */
    public static TraceSummary read(Path file) throws IOException {
        return read(file, new TraceRepairs(false));
    }

    /**
     * Reads and summarises a trace file, with an account of what it needed.
     *
     * @param repairs counts what was repaired and skipped; a strict one refuses the file at the first damage
     * @throws DamagedTraceException if the file has no readable part, or has damage and {@code repairs} is strict
     */
    public static TraceSummary read(Path file, TraceRepairs repairs) throws IOException {
        try (TraceColumns parsed = columns(file, repairs)) {
            TraceAnalysis analysis = new TraceAnalysis(parsed);
            TraceSummary summary = analysis.summary(file.getFileName().toString());
            Overlaps.account(file, parsed, analysis.overlaps(), repairs);
            return summary;
        }
    }

    /** Reads a trace file into columns; see {@link #read}. */
    static TraceColumns columns(Path file, TraceRepairs repairs) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(repairs, "repairs");
        TraceColumns parsed = new TraceColumns();
        try {
            if (file.getFileName() != null && PerfettoColumnsReader.isPerfettoName(file.getFileName().toString())) {
                PerfettoColumnsReader.read(file, parsed, repairs);
                if (parsed.events == 0 && !repairs.isClean()) {
                    throw repairs.nothingReadable();
                }
                return parsed;
            }
            boolean gzip = isGzip(file);
            repairs.file(file, gzip);
            if (!firstPass(file, gzip, parsed, repairs)) {
                // not JSON: read again, repairing (the first pass's counts go with its columns)
                parsed.close();
                parsed = new TraceColumns();
                repairs.clear();
                secondPass(file, gzip, parsed, repairs);
            }
            if (!parsed.sawEvents) {
                throw repairs.refusal(-1, "it is not a Chrome trace: it has no traceEvents");
            }
            if (parsed.events == 0 && !repairs.isClean()) {
                throw repairs.nothingReadable();
            }
        } catch (IOException | RuntimeException e) {
            parsed.close();
            throw e;
        }
        return parsed;
    }

    /**
     * Reads the file as JSON, which it is unless damaged. A file that ends too soon is read to where it ends.
     *
     * @return false when the file is not JSON before its end: the repairing pass must read it
     */
    private static boolean firstPass(Path file, boolean gzip, TraceColumns parsed, TraceRepairs repairs)
            throws IOException {
        try (Counting in = new Counting(open(file, gzip)); JsonParser p = FACTORY.createParser(in)) {
            KinetoJsonReader reader = new KinetoJsonReader(parsed, repairs, null);
            try {
                reader.read(p);
            } catch (JsonEOFException e) {
                // the end of the file, or of what a gzip file cut off or corrupt gives: every byte was read
                reader.cutOff(in.count);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                return false;
            }
            return true;
        }
    }

    private static void secondPass(Path file, boolean gzip, TraceColumns parsed, TraceRepairs repairs)
            throws IOException {
        try (JsonRepairStream in = new JsonRepairStream(open(file, gzip), repairs);
                JsonParser p = FACTORY.createParser(in)) {
            try {
                parsed.repairedPass = true;
                new KinetoJsonReader(parsed, repairs, in).read(p);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                // the repaired bytes are JSON; what Jackson still refuses (nesting beyond its limit, say) is named
                long at = e.getLocation() == null ? -1 : in.fileOffset(e.getLocation().getByteOffset());
                throw repairs.refusal(at, e.getOriginalMessage());
            }
        }
    }

    /**
     * The byte offset of the first of some host events, in file order, found by reading the file again the way it was
     * read ({@code repairedPass}) and stopping there; -1 if the reading does not reach one.
     *
     * @param rows per thread, the row of the event wanted (its position among the thread's events), or -1
     */
    static long offsetOfFirst(Path file, int[] rows, boolean repairedPass) throws IOException {
        boolean gzip = isGzip(file);
        TraceRepairs quiet = new TraceRepairs(false);
        quiet.file(file, gzip);
        try (TraceColumns scratch = new TraceColumns()) {
            if (repairedPass) {
                try (JsonRepairStream in = new JsonRepairStream(open(file, gzip), quiet);
                        JsonParser p = FACTORY.createParser(in)) {
                    new KinetoJsonReader(scratch, quiet, in).probe(rows).read(p);
                }
            } else {
                try (InputStream in = open(file, gzip); JsonParser p = FACTORY.createParser(in)) {
                    new KinetoJsonReader(scratch, quiet, null).probe(rows).read(p);
                }
            }
        } catch (KinetoJsonReader.Found found) {
            return found.offset;
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            return -1;
        }
        return -1;
    }

    /** Returns true for the names of the trace files the reader takes: Chrome JSON ({@code .json}, {@code .json.gz})
     * and Perfetto's protobuf ({@code .pftrace}, {@code .perfetto-trace}, and their {@code .gz}).
     */
    public static boolean isTraceName(String name) {
        return name.endsWith(".json") || name.endsWith(".json.gz") || PerfettoColumnsReader.isPerfettoName(name);
    }

    /** Returns true for a Perfetto trace's name ({@code .pftrace}, {@code .perfetto-trace}, and their .gz). */
    public static boolean isPerfettoName(String name) {
        return PerfettoColumnsReader.isPerfettoName(name);
    }

    /** Counts the bytes read through it: where a file that ends too soon ends. */
    private static final class Counting extends java.io.FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            count += c < 0 ? 0 : 1;
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            count += Math.max(n, 0);
            return n;
        }
    }

    private static boolean isGzip(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file)) {
            int b0 = raw.read();
            int b1 = raw.read();
            return b0 == 0x1f && b1 == 0x8b;
        }
    }

    private static InputStream open(Path file, boolean gzip) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        return gzip ? new BufferedInputStream(new CutGzip(new GZIPInputStream(in, 1 << 16)), 1 << 16) : in;
    }

    /**
     * A gzip stream whose content ends where the file is cut short or corrupt, as a plain file's ends where it is
     * cut: without it, a buffered reader loses the bytes of its last read to the exception.
     */
    private static final class CutGzip extends java.io.FilterInputStream {
        CutGzip(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            try {
                return super.read();
            } catch (java.io.EOFException | java.util.zip.ZipException e) {
                return -1;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return super.read(b, off, len);
            } catch (java.io.EOFException | java.util.zip.ZipException e) {
                return -1;
            }
        }

        @Override
        public long skip(long n) throws IOException {
            try {
                return super.skip(n);
            } catch (java.io.EOFException | java.util.zip.ZipException e) {
                return 0;
            }
        }

        @Override
        public int available() throws IOException {
            try {
                return super.available();
            } catch (IOException e) {
                return 0;
            }
        }
    }

    /** Microseconds as text to nanoseconds: exact for up to three decimals, rounded half-even beyond. */
    static long nanos(String text) throws IOException {
        int dot = text.indexOf('.');
        boolean simple = text.indexOf('e') < 0 && text.indexOf('E') < 0 && (dot < 0 || text.length() - dot - 1 <= 3);
        try {
            if (simple) {
                if (dot < 0) {
                    return Math.multiplyExact(Long.parseLong(text), 1000L);
                }
                String whole = text.substring(0, dot);
                String fraction = (text.substring(dot + 1) + "000").substring(0, 3);
                boolean negative = whole.startsWith("-");
                long micros = whole.isEmpty() || whole.equals("-") ? 0 : Long.parseLong(whole);
                long frac = Long.parseLong(fraction);
                return Math.multiplyExact(micros, 1000L) + (negative ? -frac : frac);
            }
            return new BigDecimal(text).movePointRight(3).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IOException("time '" + text + "' is not a number of microseconds");
        }
    }
}
