package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Reads ONNX Runtime's profile file ({@code SessionOptions.enableProfiling}), a JSON array of Chrome-trace
 * {@code X} events, into {@link OrtEvents} columns, in one streaming pass over chunks of the file: memory stays
 * bounded by the columns, not by the file (which is about a kilobyte per node event). The reader knows the keys it
 * keeps and skips every other value without building it ({@code thread_scheduling_stats} is most of a node's
 * bytes); strings that repeat run after run are interned once.
 *
 * <p>Keys read (ONNX Runtime 1.29.0, {@code onnxruntime/core/framework/sequential_executor.cc} writes them):
 * {@code cat}, {@code tid}, {@code ts}, {@code dur}, {@code name}, and in a node's {@code args}: {@code op_name},
 * {@code provider}, {@code node_index}, {@code input_type_shape}, {@code output_type_shape},
 * {@code activation_size}, {@code parameter_size}, {@code output_size}, {@code mem_bytes_in_use},
 * {@code mem_in_use_delta}, {@code mem_arena_held}, {@code mem_bytes_requested_in_use}, {@code mem_in_use_peak}.
 */
final class OrtProfileReader {

    private static final int CHUNK = 1 << 22;

    private static final byte[][] KEYS = {
        bytes("cat"), bytes("tid"), bytes("ts"), bytes("dur"), bytes("name"), bytes("args"), bytes("op_name"),
        bytes("provider"), bytes("node_index"), bytes("input_type_shape"), bytes("output_type_shape"),
        bytes("activation_size"), bytes("parameter_size"), bytes("output_size"), bytes("mem_bytes_in_use"),
        bytes("mem_in_use_delta"), bytes("mem_arena_held"), bytes("mem_bytes_requested_in_use"),
        bytes("mem_in_use_peak"), bytes("ph")};
    private static final int CAT = 0;
    private static final int TID = 1;
    private static final int TS = 2;
    private static final int DUR = 3;
    private static final int NAME = 4;
    private static final int ARGS = 5;
    private static final int OP_NAME = 6;
    private static final int PROVIDER = 7;
    private static final int NODE_INDEX = 8;
    private static final int INPUT_TYPE_SHAPE = 9;
    private static final int OUTPUT_TYPE_SHAPE = 10;
    private static final int ACTIVATION_SIZE = 11;
    private static final int PARAMETER_SIZE = 12;
    private static final int OUTPUT_SIZE = 13;
    private static final int MEM_BYTES_IN_USE = 14;
    private static final int MEM_IN_USE_DELTA = 15;
    private static final int MEM_ARENA_HELD = 16;
    private static final int MEM_REQUESTED_IN_USE = 17;
    private static final int MEM_IN_USE_PEAK = 18;
    private static final int PH = 19;

    private static final byte[] NODE_CAT = bytes("Node");
    private static final byte[] KERNEL_TIME = bytes("_kernel_time");
    private static final byte[] MODEL_RUN = bytes("model_run");

    private OrtProfileReader() {
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Files at least this large are read in parts on several threads. */
    static final long PARALLEL_BYTES = 8L << 20;
    /**
     * Threads a large file is read with: the system property {@code vantage.ort.readThreads}, else one per
     * processor but one, which stays with the model being served (a window ends while the service runs); at
     * least one, at most four.
     */
    static volatile int readThreads = Math.max(1, Math.min(4, Integer.getInteger("vantage.ort.readThreads",
            Runtime.getRuntime().availableProcessors() - 1)));

    /**
     * Reads a profile file. A large file is read in parts ({@link #readThreads}): ONNX Runtime writes
     * one event per line, so a part starts at a line that starts an event ({@code "\n{"}; a raw newline can only be
     * whitespace between tokens in JSON). Each part's reader checks that the part before it ended exactly where it
     * began; if not (a file written otherwise), the file is read again in one part.
     *
     * @throws IOException if the file cannot be read or is not a JSON array of objects
     */
    static OrtEvents read(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            int parts = size < PARALLEL_BYTES ? 1 : readThreads;
            long[] starts = split(ch, size, parts);
            if (starts.length == 1) {
                return new Part(ch, file, 0, size).read();
            }
            Part[] readers = new Part[starts.length];
            Thread[] threads = new Thread[starts.length];
            IOException[] failures = new IOException[starts.length];
            for (int k = 0; k < starts.length; k++) {
                readers[k] = new Part(ch, file, starts[k], k + 1 < starts.length ? starts[k + 1] : size);
                int part = k;
                threads[k] = new Thread(() -> {
                    try {
                        readers[part].read();
                    } catch (IOException | RuntimeException e) {
                        failures[part] = e instanceof IOException io ? io : new IOException(e);
                    }
                }, "vantage-ort-read-" + k);
                threads[k].start();
            }
            for (Thread t : threads) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while reading " + file, e);
                }
            }
            boolean joined = failures[0] == null;
            for (int k = 1; k < starts.length && joined; k++) {
                joined = failures[k] == null && readers[k - 1].next == starts[k];
            }
            if (!joined) {
                // the parts do not join up (or one failed): read the file as a whole, which says what is wrong
                return new Part(ch, file, 0, size).read();
            }
            OrtEvents events = readers[0].events;
            for (int k = 1; k < readers.length; k++) {
                events.append(readers[k].events);
            }
            return events;
        }
    }

    /** Where parts start: 0, then the first event start after each equal share of the file; fewer when none. */
    private static long[] split(FileChannel ch, long size, int parts) throws IOException {
        long[] starts = new long[parts];
        int n = 1;
        byte[] probe = new byte[1 << 16];
        for (int k = 1; k < parts; k++) {
            long at = size * k / parts;
            int got = ch.read(ByteBuffer.wrap(probe), at);
            for (int i = 0; i + 1 < got; i++) {
                if (probe[i] == '\n' && probe[i + 1] == '{') {
                    long start = at + i + 1;
                    if (start > starts[n - 1]) {
                        starts[n++] = start;
                    }
                    break;
                }
            }
        }
        return Arrays.copyOf(starts, n);
    }

    /**
     * Reads the events that start in {@code [from, to)} of a file, in chunks, finishing the last one past
     * {@code to}; the part at 0 also reads the array's opening bracket.
     */
    private static final class Part {
        final FileChannel ch;
        final Path file;
        final long from;
        final long to;
        final OrtEvents events;
        private final long[] scratch = new long[1];
        /** Where the next event after this part's starts: its offset, or -1 at the end of the array. */
        long next = -1;

        Part(FileChannel ch, Path file, long from, long to) {
            this.ch = ch;
            this.file = file;
            this.from = from;
            this.to = to;
            // about a kilobyte per event: room for the part's events without growing the columns
            this.events = new OrtEvents((int) Math.min(1 << 24, Math.max(1024, (to - from) / 768)));
        }

        OrtEvents read() throws IOException {
            byte[] buf = new byte[CHUNK];
            long offset = from;   // the file offset of buf[0]
            int start = 0;
            int end = 0;
            boolean eof = false;
            boolean opened = from > 0;
            while (true) {
                int i = Json.skipSpace(buf, start, end);
                if (i < end) {
                    byte c = buf[i];
                    if (!opened) {
                        if (c != '[') {
                            throw new IOException(file + " is not an ONNX Runtime profile: it does not start with '['");
                        }
                        opened = true;
                        start = i + 1;
                        continue;
                    }
                    if (c == ',') {
                        start = i + 1;
                        continue;
                    }
                    if (c == ']') {
                        return events;
                    }
                    if (offset + i >= to) {
                        next = offset + i;
                        return events;
                    }
                    if (c != '{') {
                        throw new IOException(file + " holds something else than an event near byte "
                                + (offset + i));
                    }
                    // parsed in one pass; an event cut by the end of the bytes read so far is read again whole
                    int after = parseOrtEvent(buf, i, end, events, scratch);
                    if (after == FALLBACK) {
                        after = parseEvent(buf, i, end, events);
                    }
                    if (after != Json.INCOMPLETE) {
                        start = after;
                        continue;
                    }
                }
                if (eof) {
                    if (!opened) {
                        throw new IOException(file + " is empty");
                    }
                    // ONNX Runtime ends the array with "]"; a file cut short keeps the events read so far
                    return events;
                }
                // read on: keep the unread tail at the front, grow when one event is larger than the buffer
                int tail = end - start;
                if (tail * 2 > buf.length) {
                    buf = Arrays.copyOf(buf, buf.length * 2);
                }
                System.arraycopy(buf, start, buf, 0, tail);
                offset += start;
                start = 0;
                end = tail;
                int n = ch.read(ByteBuffer.wrap(buf, end, buf.length - end), offset + end);
                if (n < 0) {
                    eof = true;
                } else {
                    end += n;
                }
            }
        }
    }

    /** {@link #parseOrtEvent}'s answer when an event is not laid out as ONNX Runtime lays it out. */
    static final int FALLBACK = -2;

    private static final byte[] HEAD_NODE = bytes("{\"cat\" : \"Node\",\"pid\" :");
    private static final byte[] HEAD_SESSION = bytes("{\"cat\" : \"Session\",\"pid\" :");
    private static final byte[] AT_TID = bytes(",\"tid\" :");
    private static final byte[] AT_DUR = bytes(",\"dur\" :");
    private static final byte[] AT_TS = bytes(",\"ts\" :");
    private static final byte[] AT_NAME = bytes(",\"ph\" : \"X\",\"name\" :\"");
    private static final byte[] AT_ARGS = bytes("\",\"args\" : ");

    /**
     * Parses an event laid out exactly as ONNX Runtime 1.29.0 writes it
     * ({@code {"cat" : "Node","pid" :1,"tid" :2,"dur" :3,"ts" :4,"ph" : "X","name" :"...","args" : {...}}}, the
     * keys of {@code args} as {@code "key" : value}): its fixed head is matched byte for byte and its numbers read
     * as they are passed, which spares the general parser's key lookups and second passes.
     *
     * @return the index after the object; {@link Json#INCOMPLETE} when it runs past {@code limit}; or
     *     {@link #FALLBACK} (no row added) when the event is laid out otherwise, for {@link #parseEvent} to read
     */
    static int parseOrtEvent(byte[] b, int from, int limit, OrtEvents e, long[] scratch) {
        int i = from;
        boolean node;
        int m = match(b, i, limit, HEAD_NODE);
        if (m > 0) {
            node = true;
            i += HEAD_NODE.length;
        } else {
            int s = match(b, i, limit, HEAD_SESSION);
            if (s <= 0) {
                return s < 0 || m < 0 ? Json.INCOMPLETE : FALLBACK;
            }
            node = false;
            i += HEAD_SESSION.length;
        }
        i = digits(b, i, limit, scratch);              // pid
        if (i < 0) {
            return i;
        }
        i = keyedDigits(b, i, limit, AT_TID, scratch);
        if (i < 0) {
            return i;
        }
        long tid = scratch[0];
        i = keyedDigits(b, i, limit, AT_DUR, scratch);
        if (i < 0) {
            return i;
        }
        long dur = scratch[0];
        i = keyedDigits(b, i, limit, AT_TS, scratch);
        if (i < 0) {
            return i;
        }
        long ts = scratch[0];
        if ((m = match(b, i, limit, AT_NAME)) <= 0) {
            return m < 0 ? Json.INCOMPLETE : FALLBACK;
        }
        int nameFrom = i + AT_NAME.length;
        int nameTo = Json.stringEnd(b, nameFrom, limit);
        if (nameTo < 0) {
            return Json.INCOMPLETE;
        }
        if ((m = match(b, nameTo, limit, AT_ARGS)) <= 0) {
            return m < 0 ? Json.INCOMPLETE : FALLBACK;
        }
        i = nameTo + AT_ARGS.length;
        if (i >= limit) {
            return Json.INCOMPLETE;
        }
        if (b[i] != '{') {
            return FALLBACK;
        }
        int row = e.add();
        i = node ? parseArgs(b, i, limit, e, row, scratch) : Json.containerEnd(b, i, limit);
        if (i < 0 || i >= limit || b[i] != '}') {
            e.dropLast();
            return i == Json.INCOMPLETE || i >= limit ? Json.INCOMPLETE : FALLBACK;
        }
        e.total++;
        e.tid[row] = tid;
        e.durMicros[row] = dur;
        e.tsMicros[row] = ts;
        int nameEnd = nameTo;
        if (node && endsWith(b, nameFrom, nameTo, KERNEL_TIME)) {
            e.kind[row] = OrtEvents.NODE;
            nameEnd = nameTo - KERNEL_TIME.length;
        } else if (!node && nameTo - nameFrom == MODEL_RUN.length
                && Arrays.equals(b, nameFrom, nameTo, MODEL_RUN, 0, MODEL_RUN.length)) {
            e.kind[row] = OrtEvents.MODEL_RUN;
        }
        e.name[row] = e.strings.intern(b, nameFrom, nameEnd);
        return i + 1;
    }

    /** 1 when {@code b[i...]} starts with {@code expected}, 0 when it does not, -1 when the bytes run out first. */
    private static int match(byte[] b, int i, int limit, byte[] expected) {
        int n = expected.length;
        if (i + n > limit) {
            int have = Math.max(0, limit - i);
            return Arrays.equals(b, i, i + have, expected, 0, have) ? -1 : 0;
        }
        return Arrays.equals(b, i, i + n, expected, 0, n) ? 1 : 0;
    }

    /**
     * Reads {@code key} and the digits after it at {@code b[i...]} into {@code out[0]}, as {@link #digits}; also
     * {@link #FALLBACK} when the key is another and {@link Json#INCOMPLETE} when it runs past {@code limit}.
     */
    private static int keyedDigits(byte[] b, int i, int limit, byte[] key, long[] out) {
        int m = match(b, i, limit, key);
        if (m <= 0) {
            return m < 0 ? Json.INCOMPLETE : FALLBACK;
        }
        return digits(b, i + key.length, limit, out);
    }

    /**
     * Reads the digits at {@code b[i...]} into {@code out[0]}; returns the index after them, {@link #FALLBACK}
     * when there are none, or {@link Json#INCOMPLETE} when they reach {@code limit}.
     */
    private static int digits(byte[] b, int i, int limit, long[] out) {
        long v = 0;
        int start = i;
        while (i < limit) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                if (i == start) {
                    return FALLBACK;
                }
                out[0] = v;
                return i;
            }
            v = v * 10 + d;
            i++;
        }
        return Json.INCOMPLETE;
    }

    /**
     * Parses the event object that starts at {@code b[from]} into a new row of the columns, in one pass.
     *
     * @return the index after the object, or {@link Json#INCOMPLETE} when it does not end before {@code limit}
     *     (then no row is added)
     */
    static int parseEvent(byte[] b, int from, int limit, OrtEvents e) {
        int row = e.add();
        boolean node = false;
        int nameFrom = -1;
        int nameTo = -1;
        int i = from + 1;
        while (true) {
            i = Json.skipSpace(b, i, limit);
            if (i >= limit) {
                e.dropLast();
                return Json.INCOMPLETE;
            }
            byte c = b[i];
            if (c == '}') {
                i++;
                break;
            }
            if (c == ',') {
                i++;
                continue;
            }
            if (c != '"') {
                // not an object member: give up on the event, keep the row as it is
                int end = Json.valueEnd(b, from, limit);
                if (end == Json.INCOMPLETE) {
                    e.dropLast();
                }
                i = end;
                break;
            }
            int keyEnd = Json.stringEnd(b, i + 1, limit);
            if (keyEnd < 0) {
                e.dropLast();
                return Json.INCOMPLETE;
            }
            int key = key(b, i + 1, keyEnd);
            i = Json.skipSpace(b, keyEnd + 1, limit);
            i = i < limit ? Json.skipSpace(b, i + 1, limit) : limit;   // the colon
            int valueEnd = i < limit ? (key == ARGS && b[i] == '{' ? parseArgs(b, i, limit, e, row, new long[1])
                    : Json.valueEnd(b, i, limit)) : Json.INCOMPLETE;
            if (valueEnd < 0) {
                e.dropLast();
                return Json.INCOMPLETE;
            }
            switch (key) {
                case CAT -> node = equalsString(b, i, valueEnd, NODE_CAT);
                case TID -> e.tid[row] = Json.number(b, i, valueEnd, -1);
                case TS -> e.tsMicros[row] = Json.number(b, i, valueEnd, 0);
                case DUR -> e.durMicros[row] = Json.number(b, i, valueEnd, 0);
                case NAME -> {
                    nameFrom = i + 1;
                    nameTo = valueEnd - 1;
                }
                default -> {
                    // pid, ph, args (read above) and anything a later build adds
                }
            }
            i = valueEnd;
        }
        if (i < 0) {
            return Json.INCOMPLETE;
        }
        e.total++;
        if (nameFrom >= 0) {
            int nameEnd = nameTo;
            if (node && endsWith(b, nameFrom, nameTo, KERNEL_TIME)) {
                // a node's event is <node name>_kernel_time; _fence_before and _fence_after are no work of the node
                e.kind[row] = OrtEvents.NODE;
                nameEnd = nameTo - KERNEL_TIME.length;
            } else if (!node && nameTo - nameFrom == MODEL_RUN.length
                    && Arrays.equals(b, nameFrom, nameTo, MODEL_RUN, 0, MODEL_RUN.length)) {
                e.kind[row] = OrtEvents.MODEL_RUN;
            }
            e.name[row] = e.strings.intern(b, nameFrom, nameEnd);
        }
        return i;
    }

    /**
     * Parses a node's {@code args} object into the row; returns the index after it, or {@link Json#INCOMPLETE}.
     * ONNX Runtime's {@code " : "} between a key and its value, and its numbers written as strings, are read as
     * they come; anything else the general way.
     */
    private static int parseArgs(byte[] b, int from, int limit, OrtEvents e, int row, long[] scratch) {
        int i = from + 1;
        while (true) {
            i = Json.skipSpace(b, i, limit);
            if (i >= limit) {
                return Json.INCOMPLETE;
            }
            byte c = b[i];
            if (c == '}') {
                return i + 1;
            }
            if (c == ',') {
                i++;
                continue;
            }
            if (c != '"') {
                return Json.valueEnd(b, from, limit);
            }
            int keyEnd = Json.stringEnd(b, i + 1, limit);
            if (keyEnd < 0) {
                return Json.INCOMPLETE;
            }
            int key = key(b, i + 1, keyEnd);
            i = keyEnd + 1;
            if (i + 3 <= limit && b[i] == ' ' && b[i + 1] == ':' && b[i + 2] == ' ') {
                i += 3;
            } else {
                i = Json.skipSpace(b, i, limit);
                i = i < limit ? Json.skipSpace(b, i + 1, limit) : limit;
            }
            if (i >= limit) {
                return Json.INCOMPLETE;
            }
            long[] column = numberColumn(e, key);
            if (column != null && b[i] == '"') {
                // a number written as a string: read while passed
                int after = digits(b, i + 1, limit, scratch);
                if (after == Json.INCOMPLETE) {
                    return Json.INCOMPLETE;
                }
                if (after > 0 && after < limit && b[after] == '"') {
                    column[row] = scratch[0];
                    i = after + 1;
                    continue;
                }
            }
            int valueEnd = Json.valueEnd(b, i, limit);
            if (valueEnd < 0) {
                return Json.INCOMPLETE;
            }
            switch (key) {
                case OP_NAME -> e.op[row] = b[i] == '"' ? e.strings.intern(b, i + 1, valueEnd - 1) : -1;
                case PROVIDER -> e.provider[row] = b[i] == '"' ? e.strings.intern(b, i + 1, valueEnd - 1) : -1;
                case INPUT_TYPE_SHAPE -> e.inputShape[row] = e.strings.intern(b, i, valueEnd);
                case OUTPUT_TYPE_SHAPE -> e.outputShape[row] = e.strings.intern(b, i, valueEnd);
                default -> {
                    if (column != null) {
                        // a number not written as digits in quotes: the general reader, absent when no number
                        column[row] = Json.number(b, i, valueEnd, key == NODE_INDEX ? -1 : OrtEvents.ABSENT);
                    }
                    // thread_scheduling_stats and the rest: skipped whole
                }
            }
            i = valueEnd;
        }
    }

    /** The column a numeric key of {@code args} goes to, or null for the other keys. */
    private static long[] numberColumn(OrtEvents e, int key) {
        return switch (key) {
            case NODE_INDEX -> e.nodeIndex;
            case ACTIVATION_SIZE -> e.activationSize;
            case PARAMETER_SIZE -> e.parameterSize;
            case OUTPUT_SIZE -> e.outputSize;
            case MEM_BYTES_IN_USE -> e.memInUse;
            case MEM_IN_USE_DELTA -> e.memInUseDelta;
            case MEM_ARENA_HELD -> e.memArenaHeld;
            case MEM_REQUESTED_IN_USE -> e.memRequestedInUse;
            case MEM_IN_USE_PEAK -> e.memInUsePeak;
            default -> null;
        };
    }

    /** Keys by length, so that a key is compared with the few of its length only. */
    private static final int[][] BY_LENGTH = byLength();

    private static int[][] byLength() {
        int max = 0;
        for (byte[] k : KEYS) {
            max = Math.max(max, k.length);
        }
        int[][] table = new int[max + 1][];
        for (int len = 0; len <= max; len++) {
            int n = 0;
            for (byte[] k : KEYS) {
                n += k.length == len ? 1 : 0;
            }
            table[len] = new int[n];
            n = 0;
            for (int k = 0; k < KEYS.length; k++) {
                if (KEYS[k].length == len) {
                    table[len][n++] = k;
                }
            }
        }
        return table;
    }

    /** Each key's first, middle and last eight bytes as longs (keys of eight bytes or more). */
    private static final long[][] KEY_WORDS = keyWords();

    private static long[][] keyWords() {
        long[][] words = new long[KEYS.length][];
        for (int k = 0; k < KEYS.length; k++) {
            byte[] key = KEYS[k];
            if (key.length >= 8) {
                words[k] = new long[] {(long) Json.LONGS.get(key, 0), (long) Json.LONGS.get(key, key.length / 2 - 4),
                    (long) Json.LONGS.get(key, key.length - 8)};
            }
        }
        return words;
    }

    /**
     * Returns the index in {@link #KEYS} of the key {@code b[from, to)}, or -1: among the keys of its length, by
     * three eight-byte words (which cover every byte of a key of up to 24 bytes, and all but two central spans
     * of the one longer key, {@code mem_bytes_requested_in_use}, whose length no other key has), or byte by byte
     * for short keys.
     */
    private static int key(byte[] b, int from, int to) {
        int len = to - from;
        if (len >= BY_LENGTH.length) {
            return -1;
        }
        int[] candidates = BY_LENGTH[len];
        if (len >= 8) {
            long first = (long) Json.LONGS.get(b, from);
            long middle = (long) Json.LONGS.get(b, from + len / 2 - 4);
            long last = (long) Json.LONGS.get(b, to - 8);
            for (int k : candidates) {
                long[] w = KEY_WORDS[k];
                if (w[0] == first && w[1] == middle && w[2] == last
                        && (len <= 24 || Arrays.equals(b, from, to, KEYS[k], 0, len))) {
                    return k;
                }
            }
            return -1;
        }
        for (int k : candidates) {
            byte[] key = KEYS[k];
            int j = 0;
            while (j < len && key[j] == b[from + j]) {
                j++;
            }
            if (j == len) {
                return k;
            }
        }
        return -1;
    }

    private static boolean equalsString(byte[] b, int from, int to, byte[] expected) {
        return to - from == expected.length + 2 && b[from] == '"'
                && Arrays.equals(b, from + 1, to - 1, expected, 0, expected.length);
    }

    private static boolean endsWith(byte[] b, int from, int to, byte[] suffix) {
        return to - from >= suffix.length && Arrays.equals(b, to - suffix.length, to, suffix, 0, suffix.length);
    }
}
