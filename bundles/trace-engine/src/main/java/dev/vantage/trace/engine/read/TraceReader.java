package dev.vantage.trace.engine.read;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonEOFException;

import dev.vantage.perfetto.format.CutGzipInputStream;
import dev.vantage.profiler.api.RunRecord;
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
 * TensorBoard plugin does, and links device work to ops whichever way the trace links them.
 *
 * <p>Damaged files (what torch writes when a job is killed, or names an event with a quote in it): a file is read as
 * JSON first, at full speed; one that ends too soon keeps what came before the end. One that stops being JSON before
 * its end is read again through {@link JsonRepairStream}, which repairs what has one reading and skips what has
 * none. {@link TraceRepairs} counts both, with the first byte offset, or refuses the file at the first damage when
 * strict ({@link DamagedTraceException}, naming the byte offset). A {@code .pftrace} is read the same way by
 * {@link PerfettoReader}. The methods are static and thread-safe.
 */
public final class TraceReader {

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE)
                    .maxNestingDepth(10_000).build())
            .build();

    private TraceReader() {
    }

    /**
     * Reads and analyses a trace file, repairing what has one reading and skipping what has none
     * ({@link TraceRepairs}); the account of that is lost: use {@link #read(Path, TraceRepairs)} to print it. Close
     * the trace when done: its columns may be in a temporary file.
     *
     * @param file a {@code .json} or {@code .json.gz} trace (gzip is recognised by its magic bytes), or a
     *     {@code .pftrace} (plain or {@code .gz})
     * @throws IOException if the file cannot be read or is not a trace, naming the file;
     *     {@link DamagedTraceException} if it has no readable part, with the byte offset
     */
    public static AnalysedTrace read(Path file) throws IOException {
        return read(file, new TraceRepairs(false));
    }

    /**
     * Reads and analyses a trace file, with an account of what it needed.
     *
     * @param repairs counts what was repaired and skipped; a strict one refuses the file at the first damage
     * @throws DamagedTraceException if the file has no readable part, or has damage and {@code repairs} is strict
     */
    public static AnalysedTrace read(Path file, TraceRepairs repairs) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(repairs, "repairs");
        SpillFile spill = new SpillFile(tempDirectory(), SpillFile.DEFAULT_HEAP_BYTES);
        try {
            TraceBuilder b = new TraceBuilder(spill);
            if (!fill(file, b, repairs)) {
                // not JSON: read again, repairing (the first pass's counts and columns go)
                spill.close();
                spill = new SpillFile(tempDirectory(), SpillFile.DEFAULT_HEAP_BYTES);
                b = new TraceBuilder(spill);
                repairs.clear();
                secondPass(file, b, repairs);
            }
            AnalysedTrace trace = new AnalysedTrace(b.build(), spill);
            if (!trace.data().source().format().equals("perfetto")) {
                // a .pftrace's overlapping slices are on lanes of their thread, Perfetto's way to write overlap;
                // which event in the file overlaps is not kept: the count has no byte offset
                repairs.report(TraceRepairs.Kind.OVERLAP, -1, b.overlaps());
            }
            return trace;
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
        return summary(file, new TraceRepairs(false));
    }

    /**
     * Reads a trace file and returns its views, with an account of what it needed.
     *
     * @throws IOException as {@link #read(Path, TraceRepairs)} does
     */
    public static TraceSummary summary(Path file, TraceRepairs repairs) throws IOException {
        try (AnalysedTrace trace = read(file, repairs)) {
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
     * and Perfetto's protobuf ({@code .pftrace}, {@code .perfetto-trace}, and their {@code .gz}), except the memory
     * timelines that earlier versions of Vantage wrote beside the traces ({@code <name>.memory-timeline.json}, and
     * {@code .json.gz}): torch's {@code [times, sizes]}, not a trace.
     */
    public static boolean isTraceName(String name) {
        if (name.endsWith(".memory-timeline.json") || name.endsWith(".memory-timeline.json.gz")) {
            return false;
        }
        return name.endsWith(".json") || name.endsWith(".json.gz") || PerfettoReader.isPerfettoName(name);
    }

    /** Returns true for a Perfetto trace's name ({@code .pftrace}, {@code .perfetto-trace}, and their .gz). */
    public static boolean isPerfettoName(String name) {
        return PerfettoReader.isPerfettoName(name);
    }

    /** The kinds of artifact that are a run's traces, in the order a reader prefers them. */
    public static final List<String> RUN_TRACE_KINDS = List.of("chrome", "tensorboard", "perfetto");

    /**
     * Returns a run's traces, one per schedule cycle, from the artifacts of its line in {@code runs.jsonl}: the
     * {@code chrome} exporter's; when it wrote none, TensorBoard's (the same trace in the plugin's layout); when it
     * wrote neither, its {@code .pftrace} files; empty when it wrote none of them (csv only, say).
     */
    public static List<Path> runTraces(List<RunRecord.Artifact> artifacts) {
        for (String kind : RUN_TRACE_KINDS) {
            List<Path> traces = runTraces(artifacts, kind);
            if (!traces.isEmpty()) {
                return traces;
            }
        }
        return List.of();
    }

    /**
     * Returns the traces among a run's artifacts of one kind, in the registry's order, each once: registries written
     * before 2026-11-29 list a TensorBoard run directory's files once per cycle.
     */
    public static List<Path> runTraces(List<RunRecord.Artifact> artifacts, String kind) {
        return artifacts.stream().filter(a -> a.kind().equals(kind) && a.target().getFileName() != null
                && isTraceName(a.target().getFileName().toString())).map(RunRecord.Artifact::target).distinct()
                .toList();
    }

    /**
     * Reads the file once: a .pftrace or an ONNX Runtime profile as they are, Chrome JSON as JSON, which it is unless
     * damaged. A JSON file that ends too soon is read to where it ends.
     *
     * @return false when the file is not JSON before its end: the repairing pass must read it
     */
    private static boolean fill(Path file, TraceBuilder b, TraceRepairs repairs) throws IOException {
        if (file.getFileName() != null && PerfettoReader.isPerfettoName(file.getFileName().toString())) {
            PerfettoReader.read(file, b, repairs);
            return true;
        }
        boolean gzip;
        byte[] head = new byte[256];
        int got;
        try (InputStream raw = Files.newInputStream(file)) {
            got = raw.readNBytes(head, 0, head.length);
            gzip = got >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b;
        }
        repairs.file(file, gzip);
        if (!gzip && OrtProfileReader.looksLikeOrt(head, got)) {
            // ONNX Runtime's own profile: its runs as ort::run, its nodes as the device ort's kernels
            OrtProfile profile = OrtProfileReader.read(file);
            OrtProfileReader.fill(profile, b);
            b.process("onnxruntime", 0);
            b.source(new dev.vantage.trace.engine.TraceSource("onnxruntime", java.util.Map.of(), 0, profile.total));
            return true;
        }
        KinetoJsonReader reader = new KinetoJsonReader(b, repairs, null);
        try (Counting in = new Counting(open(file, gzip, repairs)); JsonParser p = FACTORY.createParser(in)) {
            try {
                reader.read(p);
            } catch (JsonEOFException e) {
                // the end of the file, or of what a gzip file cut off or corrupt gives: every byte was read
                reader.cutOff(in.count);
            } catch (com.fasterxml.jackson.core.JacksonException | java.io.CharConversionException e) {
                // not JSON, or bytes whose start made Jackson take them for UTF-16 or UTF-32: the repairing pass
                return false;
            }
        }
        finish(reader, repairs);
        return true;
    }

    private static void secondPass(Path file, TraceBuilder b, TraceRepairs repairs) throws IOException {
        boolean gzip = isGzip(file);
        KinetoJsonReader reader;
        try (JsonRepairStream in = new JsonRepairStream(open(file, gzip, repairs), repairs);
                JsonParser p = FACTORY.createParser(in)) {
            reader = new KinetoJsonReader(b, repairs, in);
            try {
                reader.read(p);
            } catch (com.fasterxml.jackson.core.JacksonException e) {
                // the repaired bytes are JSON; what Jackson still refuses (nesting beyond its limit, say) is named
                long at = e.getLocation() == null ? -1 : in.fileOffset(e.getLocation().getByteOffset());
                throw repairs.refusal(at, e.getOriginalMessage());
            } catch (java.io.CharConversionException e) {
                // a trace is UTF-8 (RFC 8259); zero bytes at its start make Jackson read it as UTF-16 or UTF-32
                throw repairs.refusal(0, "it is not UTF-8 text: its first bytes read as UTF-16 or UTF-32");
            }
        }
        finish(reader, repairs);
    }

    private static void finish(KinetoJsonReader reader, TraceRepairs repairs) throws IOException {
        if (!reader.sawEvents) {
            throw repairs.refusal(-1, "it is not a Chrome trace: it has no traceEvents");
        }
        if (reader.events == 0 && !repairs.isClean()) {
            throw repairs.nothingReadable();
        }
        reader.finish();
    }

    private static boolean isGzip(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file)) {
            return raw.read() == 0x1f && raw.read() == 0x8b;
        }
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

    private static InputStream open(Path file, boolean gzip, TraceRepairs repairs) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        if (!gzip) {
            return in;
        }
        try {
            return new BufferedInputStream(new CutGzipInputStream(in, 1 << 16), 1 << 16);
        } catch (CutGzipInputStream.HeaderException e) {
            in.close();
            throw repairs.fileRefusal(0, e.getMessage());
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
