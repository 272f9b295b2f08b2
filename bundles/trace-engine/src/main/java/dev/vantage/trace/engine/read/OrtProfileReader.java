package dev.vantage.trace.engine.read;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonEOFException;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.TraceBuilder;

/**
 * Reads ONNX Runtime's profile file ({@code SessionOptions.enableProfiling}), a JSON array of Chrome-trace {@code X}
 * events, into {@link OrtProfile} columns with Jackson's streaming parser, in one pass: memory stays bounded by the
 * columns, not by the file (about a kilobyte per node event), and every value the columns do not keep is skipped
 * without being built ({@code thread_scheduling_stats} is most of a node's bytes). A file cut short (its writer
 * killed) keeps the events before the cut.
 *
 * <p>Keys read (ONNX Runtime 1.29.0's {@code onnxruntime/core/framework/sequential_executor.cc} writes them):
 * {@code cat}, {@code tid}, {@code ts}, {@code dur}, {@code name}, and in a node's {@code args}: {@code op_name},
 * {@code provider}, {@code node_index}, {@code input_type_shape}, {@code output_type_shape},
 * {@code activation_size}, {@code parameter_size}, {@code output_size}, {@code mem_bytes_in_use},
 * {@code mem_in_use_delta}, {@code mem_arena_held}, {@code mem_bytes_requested_in_use}, {@code mem_in_use_peak}. The
 * numbers ONNX Runtime writes as strings are read either way.
 */
public final class OrtProfileReader {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final String KERNEL_TIME = "_kernel_time";
    /** The least bytes a part of a file read on several threads holds. */
    private static final long PART = 16L << 20;

    private OrtProfileReader() {
    }

    /**
     * Reads a profile file, on up to four threads when the file is large enough to be worth splitting (16 MiB a
     * part) and the machine has the processors.
     *
     * @throws IOException if the file cannot be read; {@link DamagedTraceException}, naming the file and the byte
     *     offset, if it is not a JSON array of events
     */
    public static OrtProfile read(Path file) throws IOException {
        long size = Files.size(file);
        int parts = (int) Math.min(Math.min(4, Runtime.getRuntime().availableProcessors()), size / PART);
        return read(file, Math.max(1, parts));
    }

    /**
     * Reads a profile file in {@code parts} parts on as many threads, split where a line starts an event as ONNX
     * Runtime writes them ({@code ,\n{"cat"}), and joined in the file's order: the same columns as one pass. A file
     * with fewer such places is read in fewer parts; a part that does not read whole sends the file through one pass,
     * whose account of the damage (or of a file cut short) is the one the caller gets.
     *
     * @throws IOException if the file cannot be read; {@link DamagedTraceException}, naming the file and the byte
     *     offset, if it is not a JSON array of events
     * @throws IllegalArgumentException if {@code parts} is below 1
     */
    public static OrtProfile read(Path file, int parts) throws IOException {
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be at least 1, not " + parts);
        }
        long size = Files.size(file);
        if (parts > 1) {
            long[] bounds = OrtSplit.bounds(file, size, parts);
            if (bounds.length > 2) {
                OrtProfile joined = OrtSplit.readParts(file, bounds, OrtProfileReader::readPart);
                if (joined != null) {
                    return joined;
                }
            }
        }
        // about a kilobyte per event: room for the file's events without growing the columns
        OrtProfile e = new OrtProfile((int) Math.min(1 << 24, Math.max(1024, size / 768)));
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
                JsonParser p = FACTORY.createParser(in)) {
            JsonToken first;
            try {
                first = p.nextToken();
            } catch (com.fasterxml.jackson.core.JacksonException bad) {
                // found by fuzzing: Jackson's own message, two lines of library text, named no file
                throw new DamagedTraceException(file, 0, false, "it is not an ONNX Runtime profile: it does not"
                        + " start with '['");
            }
            if (first == null) {
                throw new DamagedTraceException(file, -1, false, "it is empty");
            }
            if (first != JsonToken.START_ARRAY) {
                throw new DamagedTraceException(file, p.currentTokenLocation().getByteOffset(), false,
                        "it is not an ONNX Runtime profile: it does not start with '['");
            }
            try {
                JsonToken t;
                while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
                    event(p, e);
                }
                if (t != JsonToken.END_ARRAY) {
                    throw new DamagedTraceException(file, p.currentTokenLocation().getByteOffset(), false,
                            "it holds something else than an event there");
                }
            } catch (JsonEOFException cut) {
                // ONNX Runtime ends the array with "]"; a file cut short keeps the events read so far
                if (e.size > 0 && e.kind[e.size - 1] == -1) {
                    e.size--;
                }
            } catch (com.fasterxml.jackson.core.JacksonException bad) {
                throw new DamagedTraceException(file, p.currentLocation().getByteOffset(), false,
                        bad.getOriginalMessage());
            }
        }
        return e;
    }

    /**
     * Reads one part, a JSON array of whole events, into columns sized for its bytes.
     *
     * @throws IOException if the part is not such an array; the caller then reads the file in one pass
     */
    private static OrtProfile readPart(InputStream in, long bytes) throws IOException {
        OrtProfile e = new OrtProfile((int) Math.min(1 << 24, Math.max(1024, bytes / 768)));
        try (JsonParser p = FACTORY.createParser(in)) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw new IOException("a part does not start an array");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.START_OBJECT) {
                event(p, e);
            }
            if (t != JsonToken.END_ARRAY || p.nextToken() != null) {
                throw new IOException("a part holds something else than events");
            }
        }
        return e;
    }

    /** One event; the parser is on its {@code START_OBJECT} and is left on its {@code END_OBJECT}. */
    private static void event(JsonParser p, OrtProfile e) throws IOException {
        int row = e.add();
        e.kind[row] = -1;   // incomplete until its end is read
        boolean node = false;
        String name = null;
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "cat" -> node = v == JsonToken.VALUE_STRING && p.getText().equals("Node");
                case "tid" -> e.tid[row] = number(p, v, -1);
                case "ts" -> e.tsMicros[row] = number(p, v, 0);
                case "dur" -> e.durMicros[row] = number(p, v, 0);
                case "name" -> name = v == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                case "args" -> {
                    if (v == JsonToken.START_OBJECT) {
                        args(p, e, row);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
        e.total++;
        e.kind[row] = OrtProfile.OTHER;
        if (name != null) {
            if (node && name.endsWith(KERNEL_TIME)) {
                // a node's event is <node name>_kernel_time; _fence_before and _fence_after are no work of the node
                e.kind[row] = OrtProfile.NODE;
                name = name.substring(0, name.length() - KERNEL_TIME.length());
            } else if (!node && name.equals("model_run")) {
                e.kind[row] = OrtProfile.MODEL_RUN;
            }
            e.name[row] = e.strings.intern(name);
        }
    }

    /** A node's {@code args}; the parser is on its {@code START_OBJECT} and is left on its {@code END_OBJECT}. */
    private static void args(JsonParser p, OrtProfile e, int row) throws IOException {
        String field;
        while ((field = p.nextFieldName()) != null) {
            JsonToken v = p.nextToken();
            switch (field) {
                case "op_name" -> e.op[row] = v == JsonToken.VALUE_STRING ? e.strings.intern(p.getText()) : skipId(p);
                case "provider" -> e.provider[row] = v == JsonToken.VALUE_STRING ? e.strings.intern(p.getText())
                        : skipId(p);
                case "node_index" -> e.nodeIndex[row] = number(p, v, -1);
                case "activation_size" -> e.activationSize[row] = number(p, v, OrtProfile.ABSENT);
                case "parameter_size" -> e.parameterSize[row] = number(p, v, OrtProfile.ABSENT);
                case "output_size" -> e.outputSize[row] = number(p, v, OrtProfile.ABSENT);
                case "mem_bytes_in_use" -> e.memInUse[row] = number(p, v, OrtProfile.ABSENT);
                case "mem_in_use_delta" -> e.memInUseDelta[row] = number(p, v, OrtProfile.ABSENT);
                case "mem_arena_held" -> e.memArenaHeld[row] = number(p, v, OrtProfile.ABSENT);
                case "mem_bytes_requested_in_use" -> e.memRequestedInUse[row] = number(p, v, OrtProfile.ABSENT);
                case "mem_in_use_peak" -> e.memInUsePeak[row] = number(p, v, OrtProfile.ABSENT);
                case "input_type_shape" -> {
                    if (v == JsonToken.START_ARRAY) {
                        StringBuilder torch = new StringBuilder();
                        StringBuilder ort = new StringBuilder();
                        typeShapes(p, torch, ort);
                        e.inputDims[row] = e.strings.intern(torch);
                        e.inputShape[row] = e.strings.intern(ort);
                    } else {
                        p.skipChildren();
                    }
                }
                case "output_type_shape" -> {
                    if (v == JsonToken.START_ARRAY) {
                        StringBuilder ort = new StringBuilder();
                        typeShapes(p, new StringBuilder(), ort);
                        e.outputShape[row] = e.strings.intern(ort);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();   // thread_scheduling_stats and the rest: skipped whole
            }
        }
    }

    /**
     * Reads {@code [{"float":[8,128,384]},{"int64":[2]}]} into torch's {@code Input Dims} text
     * ({@code [[8, 128, 384], [2]]}) and into ONNX Runtime's own, compactly, in one pass. The parser is on the array's
     * start and is left on its end; a value of another structure counts as an input without dims.
     */
    private static void typeShapes(JsonParser p, StringBuilder torch, StringBuilder ort) throws IOException {
        torch.append('[');
        ort.append('[');
        int inputs = 0;
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            torch.append(inputs == 0 ? "[" : ", [");
            ort.append(inputs++ == 0 ? "" : ",");
            if (t != JsonToken.START_OBJECT) {
                p.skipChildren();
                torch.append(']');
                ort.append("{}");
                continue;
            }
            ort.append('{');
            int types = 0;
            String type;
            while ((type = p.nextFieldName()) != null) {
                JsonToken shape = p.nextToken();
                ort.append(types > 0 ? "," : "").append('"').append(type).append("\":");
                if (shape == JsonToken.START_ARRAY) {
                    ort.append('[');
                    int d = 0;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        String dim = p.getText();
                        if (types == 0) {
                            torch.append(d == 0 ? "" : ", ").append(dim);
                        }
                        ort.append(d++ == 0 ? "" : ",").append(dim);
                    }
                    ort.append(']');
                } else {
                    p.skipChildren();
                    ort.append("null");
                }
                types++;
            }
            torch.append(']');
            ort.append('}');
        }
        torch.append(']');
        ort.append(']');
    }

    /** A number written as a number or as a string of digits; {@code absent} for anything else. */
    private static long number(JsonParser p, JsonToken v, long absent) throws IOException {
        if (v == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        if (v == JsonToken.VALUE_STRING) {
            char[] c = p.getTextCharacters();
            int off = p.getTextOffset();
            int len = p.getTextLength();
            if (len == 0 || len > 18) {
                return absent;
            }
            boolean negative = c[off] == '-';
            long n = 0;
            for (int i = negative ? 1 : 0; i < len; i++) {
                int d = c[off + i] - '0';
                if (d < 0 || d > 9) {
                    return absent;
                }
                n = n * 10 + d;
            }
            return negative ? -n : n;
        }
        if (v == JsonToken.VALUE_NUMBER_FLOAT) {
            return (long) p.getDoubleValue();
        }
        p.skipChildren();
        return absent;
    }

    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    private static int skipId(JsonParser p) throws IOException {
        p.skipChildren();
        return -1;
    }

    private static final java.util.regex.Pattern ORT_HEAD = java.util.regex.Pattern.compile(
            "\\s*\\[\\s*\\{\\s*\"cat\"\\s*:\\s*\"(Session|Node)\"");

    /** Returns whether a file's first bytes are an ONNX Runtime profile's: an array whose first event is a session's. */
    static boolean looksLikeOrt(byte[] head, int length) {
        return ORT_HEAD.matcher(new String(head, 0, length, java.nio.charset.StandardCharsets.UTF_8)).lookingAt();
    }

    /**
     * Fills a trace from a profile as {@code vantage report} and the other verbs read one: each {@code model_run} is
     * the op {@code ort::run} on its thread, each node's work a kernel of the device {@code ort} (its thread as its
     * stream, its op type as its name, its inputs' dims as {@code Input Dims}) launched by the run that holds its
     * start; times from the session's profiling start.
     */
    static void fill(OrtProfile e, TraceBuilder b) {
        int run = b.name("ort::run");
        long flow = 1;
        for (int i = 0; i < e.size; i++) {
            long start = e.tsMicros[i] * 1000;
            long duration = e.durMicros[i] * 1000;
            if (e.kind[i] == OrtProfile.MODEL_RUN) {
                int thread = b.thread("ort/" + e.tid[i], e.tid[i]);
                b.host(thread, start, duration, run, EventKind.CPU_OP, Long.MIN_VALUE, Long.MIN_VALUE, -1, -1, null,
                        null);
            }
        }
        // each node to the run holding its start, found by time on the run's thread (as legacy flows are); runs in
        // start order, found by binary search
        int runs = 0;
        long[][] byStart = new long[e.size][];
        for (int i = 0; i < e.size; i++) {
            if (e.kind[i] == OrtProfile.MODEL_RUN) {
                long s = e.tsMicros[i] * 1000;
                byStart[runs++] = new long[] {s, s + e.durMicros[i] * 1000, e.tid[i]};
            }
        }
        long[][] sorted = java.util.Arrays.copyOf(byStart, runs);
        java.util.Arrays.sort(sorted, (x, y) -> Long.compare(x[0], y[0]));
        for (int i = 0; i < e.size; i++) {
            if (e.kind[i] != OrtProfile.NODE) {
                continue;
            }
            long start = e.tsMicros[i] * 1000;
            String op = e.op[i] >= 0 ? e.strings.get(e.op[i]) : e.strings.get(e.name[i]);
            Map<String, String> args = new java.util.LinkedHashMap<>();
            args.put("Node name", e.strings.get(e.name[i]));
            if (e.provider[i] >= 0) {
                args.put("provider", e.strings.get(e.provider[i]));
            }
            if (e.inputDims[i] >= 0) {
                args.put("Input Dims", e.strings.get(e.inputDims[i]));
            }
            // the node's memory as ONNX Runtime measured it, under its own names (as a Vantage run's trace has them)
            e.putSizes(args, i);
            long id = flow++;
            int lo = 0;
            int hi = runs;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (sorted[mid][0] <= start) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            if (lo > 0 && start <= sorted[lo - 1][1]) {
                long runThread = sorted[lo - 1][2];
                b.flowStart(id, b.thread("ort/" + runThread, runThread), start);
            }
            b.device(EventKind.KERNEL, op, "ort", 0, e.tid[i], start, e.durMicros[i] * 1000, -1, Long.MIN_VALUE, id,
                    args);
        }
    }
}
