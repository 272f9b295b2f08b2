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
 * A damaged file is named with the byte offset where it stops being JSON. The methods are static and thread-safe.
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
     * Reads and summarises a trace file.
     *
     * @param file a {@code .json} or {@code .json.gz} trace (gzip is recognised by its magic bytes), or a
     *     {@code .pftrace} (plain or {@code .gz})
     * @return the summary
     * @throws IOException if the file cannot be read or is not a trace; the message names the file, and for a
     *     damaged one the byte offset where it breaks
     */
    public static TraceSummary read(Path file) throws IOException {
        try (TraceColumns parsed = columns(file)) {
            return new TraceAnalysis(parsed).summary(file.getFileName().toString());
        }
    }

    /** Reads a trace file into columns; see {@link #read}. */
    static TraceColumns columns(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        TraceColumns parsed = new TraceColumns();
        try {
            read(file, parsed);
        } catch (IOException | RuntimeException e) {
            parsed.close();
            throw e;
        }
        return parsed;
    }

    /**
     * Returns true for the names of the trace files the reader takes: Chrome JSON ({@code .json}, {@code .json.gz})
     * and Perfetto's protobuf ({@code .pftrace}, {@code .perfetto-trace}, and their {@code .gz}).
     */
    public static boolean isTraceName(String name) {
        return name.endsWith(".json") || name.endsWith(".json.gz") || PerfettoColumnsReader.isPerfettoName(name);
    }

    /** Returns true for a Perfetto trace's name ({@code .pftrace}, {@code .perfetto-trace}, and their .gz). */
    public static boolean isPerfettoName(String name) {
        return PerfettoColumnsReader.isPerfettoName(name);
    }

    private static void read(Path file, TraceColumns parsed) throws IOException {
        if (file.getFileName() != null && PerfettoColumnsReader.isPerfettoName(file.getFileName().toString())) {
            PerfettoColumnsReader.read(file, parsed);
            return;
        }
        boolean gzip;
        try (InputStream raw = Files.newInputStream(file)) {
            int b0 = raw.read();
            int b1 = raw.read();
            gzip = b0 == 0x1f && b1 == 0x8b;
        }
        try (InputStream in = open(file, gzip); JsonParser p = FACTORY.createParser(in)) {
            try {
                new KinetoJsonReader(parsed).read(p);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                throw damaged(file, gzip, p, e.getOriginalMessage());
            } catch (java.io.EOFException | java.util.zip.ZipException e) {
                throw damaged(file, gzip, p, "the gzip stream is cut short or corrupt (" + e.getMessage() + ")");
            } catch (IOException e) {
                if (e.getMessage() != null && e.getMessage().startsWith(file.toString())) {
                    throw e;
                }
                throw damaged(file, gzip, p, e.getMessage());
            }
        }
        if (!parsed.sawEvents) {
            throw new IOException(file + " is not a Chrome trace: it has no traceEvents");
        }
    }

    private static IOException damaged(Path file, boolean gzip, JsonParser p, String why) {
        long offset = p.currentLocation().getByteOffset();
        if (offset < 0) {
            offset = p.currentLocation().getCharOffset();
        }
        return new IOException(file + " is damaged at byte " + offset + (gzip ? " of its uncompressed JSON" : "")
                + ": " + why);
    }

    private static InputStream open(Path file, boolean gzip) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        return gzip ? new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16) : in;
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
