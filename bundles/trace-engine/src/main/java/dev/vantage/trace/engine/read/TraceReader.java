package dev.vantage.trace.engine.read;

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

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.TraceBuilder;
import dev.vantage.trace.engine.store.SpillFile;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Reads a trace file into the engine: every Kineto JSON variant torch has written since 1.8 and the legacy array
 * torch writes without Kineto ({@link KinetoJsonReader}), plain or gzip-compressed, Vantage's own chrome and
 * tensorboard traces, Perfetto's protobuf traces ({@code .pftrace}: Vantage's perfetto exporter's and torch's), by
 * their name ({@link PerfettoReader}), and ONNX Runtime's own profile files, by their first event
 * ({@link OrtProfileReader}). The result is the same {@link AnalysedTrace} a recorded window is: the
 * same nesting, self times, linkage, steps and sums.
 *
 * <p>Design: a reader fills a {@link TraceBuilder} in one streamed pass (Jackson's streaming parser, never a tree of
 * the document) into columns that spill to a memory-mapped temporary file ({@link SpillFile}), so a trace larger than
 * the heap reads in a heap of the same size; the builder then nests each thread's events by time, as the
 * TensorBoard plugin does, and links device work to ops whichever way the trace links them. A damaged file is named
 * with the byte offset where it stops being JSON. The methods are static and thread-safe.
 */
public final class TraceReader {

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE)
                    .maxNestingDepth(10_000).build())
            .build();

    private TraceReader() {
    }

    /**
     * Reads and analyses a trace file. Close the trace when done: its columns may be in a temporary file.
     *
     * @param file a {@code .json} or {@code .json.gz} trace (gzip is recognised by its magic bytes), or a
     *     {@code .pftrace} (plain or {@code .gz})
     * @throws IOException if the file cannot be read or is not a trace; the message names the file, and for a
     *     damaged one the byte offset where it breaks
     */
    public static AnalysedTrace read(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        SpillFile spill = new SpillFile(tempDirectory(), SpillFile.DEFAULT_HEAP_BYTES);
        try {
            TraceBuilder b = new TraceBuilder(spill);
            fill(file, b);
            return new AnalysedTrace(b.build(), spill);
        } catch (IOException | RuntimeException | Error e) {
            spill.close();
            throw e;
        }
    }

    /**
     * Reads a trace file and returns its views, named by the file's name; the trace's columns go once they are made.
     *
     * @throws IOException as {@link #read} does
     */
    public static TraceSummary summary(Path file) throws IOException {
        try (AnalysedTrace trace = read(file)) {
            return trace.summary(file.getFileName().toString());
        }
    }

    /** The most points a memory curve of a summary keeps. */
    public static final int MAX_CURVE_POINTS = AnalysedTrace.MAX_CURVE_POINTS;

    private static Path tempDirectory() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /**
     * Returns true for the names of the trace files the reader takes: Chrome JSON ({@code .json}, {@code .json.gz})
     * and Perfetto's protobuf ({@code .pftrace}, {@code .perfetto-trace}, and their {@code .gz}).
     */
    public static boolean isTraceName(String name) {
        return name.endsWith(".json") || name.endsWith(".json.gz") || PerfettoReader.isPerfettoName(name);
    }

    /** Returns true for a Perfetto trace's name ({@code .pftrace}, {@code .perfetto-trace}, and their .gz). */
    public static boolean isPerfettoName(String name) {
        return PerfettoReader.isPerfettoName(name);
    }

    private static void fill(Path file, TraceBuilder b) throws IOException {
        if (file.getFileName() != null && PerfettoReader.isPerfettoName(file.getFileName().toString())) {
            PerfettoReader.read(file, b);
            return;
        }
        boolean gzip;
        byte[] head = new byte[256];
        int got;
        try (InputStream raw = Files.newInputStream(file)) {
            got = raw.readNBytes(head, 0, head.length);
            gzip = got >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
        }
        if (!gzip && OrtProfileReader.looksLikeOrt(head, got)) {
            // ONNX Runtime's own profile: its runs as ort::run, its nodes as the device ort's kernels
            OrtProfile profile = OrtProfileReader.read(file);
            OrtProfileReader.fill(profile, b);
            b.process("onnxruntime", 0);
            b.source(new dev.vantage.trace.engine.TraceSource("onnxruntime", java.util.Map.of(), 0, profile.total));
            return;
        }
        KinetoJsonReader reader = new KinetoJsonReader(b);
        try (InputStream in = open(file, gzip); JsonParser p = FACTORY.createParser(in)) {
            try {
                reader.read(p);
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
        if (!reader.sawEvents) {
            throw new IOException(file + " is not a Chrome trace: it has no traceEvents");
        }
        reader.finish();
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
