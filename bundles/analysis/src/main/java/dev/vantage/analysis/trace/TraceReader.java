package dev.vantage.analysis.trace;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * Reads a Chrome/Kineto trace ({@code .json}, or gzip-compressed {@code .json.gz}, as Vantage's chrome and
 * tensorboard exporters and PyTorch write them) into a {@link TraceSummary}.
 *
 * <p>Design: one pass of Jackson's streaming parser, never a tree of the document. Complete events go into
 * primitive columns ({@link EventColumns}: one set per host thread, one for device work), about 40 bytes an event;
 * {@code [memory]} events into three longs each; flows and metadata are skipped. {@link TraceAnalysis} then nests
 * each thread's events by time, as the TensorBoard plugin does, and joins device work to its launching operator by
 * {@code External id}. Categories read: {@code cpu_op}/{@code operator}, {@code user_annotation},
 * {@code *_runtime}/{@code runtime}, {@code kernel}, {@code gpu_memcpy}/{@code memcpy},
 * {@code gpu_memset}/{@code memset}; {@code gc}, {@code python_function} and {@code *_driver} events nest like host
 * events; everything else is skipped. Instances are not needed: the methods are static and thread-safe.
 */
public final class TraceReader {

    /** The most points a {@link MemoryCurve} keeps. */
    public static final int MAX_CURVE_POINTS = 2000;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
            .build();

    private TraceReader() {
    }

    /**
     * Reads and summarises a trace file.
     *
     * @param file a {@code .json} or {@code .json.gz} Chrome trace (gzip is recognised by its magic bytes)
     * @return the summary
     * @throws IOException if the file cannot be read or is not a Chrome trace; the message names the file
     */
    public static TraceSummary read(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        ParsedTrace parsed = new ParsedTrace();
        try (InputStream in = open(file); JsonParser p = FACTORY.createParser(in)) {
            parse(p, parsed);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new IOException(file + " is not a readable Chrome trace: " + e.getOriginalMessage(), e);
        }
        if (!parsed.sawEvents) {
            throw new IOException(file + " is not a Chrome trace: it has no traceEvents");
        }
        return new TraceAnalysis(parsed).summary(file.getFileName().toString());
    }

    private static InputStream open(Path file) throws IOException {
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        in.mark(2);
        int b0 = in.read();
        int b1 = in.read();
        in.reset();
        return b0 == 0x1f && b1 == 0x8b ? new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16) : in;
    }

    private static void parse(JsonParser p, ParsedTrace t) throws IOException {
        JsonToken first = p.nextToken();
        if (first == JsonToken.START_ARRAY) {
            // the Chrome trace format's other form: a bare array of events
            events(p, t);
            return;
        }
        if (first != JsonToken.START_OBJECT) {
            throw new IOException("not a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "traceEvents" -> {
                    if (value != JsonToken.START_ARRAY) {
                        throw new IOException("traceEvents is not an array");
                    }
                    events(p, t);
                }
                case "distributedInfo" -> distributedInfo(p, t);
                case "deviceProperties" -> deviceProperties(p, t);
                case "baseTimeNanoseconds" -> t.baseNanos = p.getValueAsLong();
                default -> p.skipChildren();
            }
        }
    }

    private static void events(JsonParser p, ParsedTrace t) throws IOException {
        t.sawEvents = true;
        JsonToken token;
        while ((token = p.nextToken()) == JsonToken.START_OBJECT) {
            event(p, t);
        }
        if (token != JsonToken.END_ARRAY) {
            throw new IOException("an event is not a JSON object");
        }
    }

    /** One event; the parser is on its {@code START_OBJECT} and is left on its {@code END_OBJECT}. */
    private static void event(JsonParser p, ParsedTrace t) throws IOException {
        String ph = null;
        String cat = "";
        String name = "";
        String pid = "";
        String tid = "";
        long ts = Long.MIN_VALUE;
        long dur = 0;
        EventArgs args = t.args.clear();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "ph" -> ph = p.getValueAsString();
                case "cat" -> cat = value == JsonToken.VALUE_STRING ? p.getText() : "";
                case "name" -> name = value == JsonToken.VALUE_STRING ? p.getText() : "";
                case "pid" -> pid = p.getText();
                case "tid" -> tid = p.getText();
                case "ts" -> ts = nanos(p);
                case "dur" -> dur = nanos(p);
                case "args" -> {
                    if (value == JsonToken.START_OBJECT) {
                        args.read(p);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (ph == null || ts == Long.MIN_VALUE) {
            return;
        }
        if (ph.equals("i") || ph.equals("I")) {
            if (name.equals("[memory]") && args.deviceType != Integer.MIN_VALUE) {
                t.memory(args.deviceType, args.deviceId).add(ts, args.totalAllocated, args.totalReserved);
                t.events++;
            }
            return;
        }
        if (!ph.equals("X")) {
            return;
        }
        byte kind = kind(cat.toLowerCase(Locale.ROOT), name, args);
        if (kind < 0) {
            return;
        }
        t.events++;
        dur = Math.max(0, dur);
        if (kind >= EventColumns.KERNEL) {
            t.device.add(ts, dur, args.externalId, t.name(name), Math.max(0, args.device), kind);
        } else if (kind == EventColumns.ANNOTATION && name.startsWith("ProfilerStep#")) {
            t.step(name, ts, dur, pid + "/" + tid);
        } else {
            t.thread(pid + "/" + tid).add(ts, dur, args.externalId, t.name(name), t.shapes(args.shapes()), kind);
        }
    }

    private static byte kind(String cat, String name, EventArgs args) {
        switch (cat) {
            case "cpu_op", "operator":
                return EventColumns.OP;
            case "user_annotation":
                return EventColumns.ANNOTATION;
            case "kernel":
                return communication(name, args) ? EventColumns.COMMUNICATION : EventColumns.KERNEL;
            case "gpu_memcpy", "memcpy":
                return communication(name, args) ? EventColumns.COMMUNICATION : EventColumns.MEMCPY;
            case "gpu_memset", "memset":
                return EventColumns.MEMSET;
            case "gc", "python_function", "python":
                return EventColumns.OTHER_HOST;
            default:
                if (cat.equals("runtime") || cat.endsWith("_runtime")) {
                    return EventColumns.RUNTIME;
                }
                return cat.endsWith("_driver") ? EventColumns.OTHER_HOST : -1;
        }
    }

    /** As the trace model's rule: HCCL's {@code hcom_*}, NCCL's kernels, or work carrying a collective's name. */
    private static boolean communication(String name, EventArgs args) {
        return name.startsWith("hcom_") || name.toLowerCase(Locale.ROOT).contains("nccl") || args.collective;
    }

    private static void distributedInfo(JsonParser p, ParsedTrace t) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "rank" -> t.rank = p.getValueAsInt(-1);
                case "world_size" -> t.worldSize = p.getValueAsInt(1);
                default -> p.skipChildren();
            }
        }
    }

    private static void deviceProperties(JsonParser p, ParsedTrace t) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (field.equals("type") && p.currentToken() == JsonToken.VALUE_STRING) {
                    t.deviceTypes.add(p.getText());
                } else {
                    p.skipChildren();
                }
            }
        }
    }

    /**
     * Reads a time in microseconds, as Kineto writes them (a number, three decimals), as nanoseconds: exact for up
     * to three decimals, rounded half-even beyond.
     */
    static long nanos(JsonParser p) throws IOException {
        JsonToken token = p.currentToken();
        if (token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT
                && token != JsonToken.VALUE_STRING) {
            p.skipChildren();
            return Long.MIN_VALUE;
        }
        return nanos(p.getText());
    }

    /** Microseconds as text to nanoseconds; see {@link #nanos(JsonParser)}. */
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
