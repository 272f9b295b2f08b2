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

    /**
     * Reads a profile file.
     *
     * @throws IOException if the file cannot be read or is not a JSON array of objects
     */
    static OrtEvents read(Path file) throws IOException {
        OrtEvents events = new OrtEvents();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            byte[] buf = new byte[CHUNK];
            int start = 0;
            int end = 0;
            boolean eof = false;
            boolean opened = false;
            while (true) {
                int i = Json.skipSpace(buf, start, end);
                if (i < end && !opened) {
                    if (buf[i] != '[') {
                        throw new IOException(file + " is not an ONNX Runtime profile: it does not start with '['");
                    }
                    opened = true;
                    start = i + 1;
                    continue;
                }
                if (i < end && (buf[i] == ',')) {
                    start = i + 1;
                    continue;
                }
                if (i < end && buf[i] == ']') {
                    return events;
                }
                int objectEnd = i < end ? Json.valueEnd(buf, i, end) : Json.INCOMPLETE;
                if (objectEnd != Json.INCOMPLETE) {
                    if (buf[i] != '{') {
                        throw new IOException(file + " holds something else than an event at byte offset " + i);
                    }
                    parseEvent(buf, i, objectEnd, events);
                    start = objectEnd;
                    continue;
                }
                if (eof) {
                    if (!opened && i >= end) {
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
                start = 0;
                end = tail;
                ByteBuffer bb = ByteBuffer.wrap(buf, end, buf.length - end);
                int n = ch.read(bb);
                if (n < 0) {
                    eof = true;
                } else {
                    end += n;
                }
            }
        }
    }

    /** Parses one event object {@code b[from, to)} into a new row of the columns. */
    static void parseEvent(byte[] b, int from, int to, OrtEvents e) {
        int row = e.add();
        e.total++;
        boolean node = false;
        int nameFrom = -1;
        int nameTo = -1;
        int i = from + 1;
        while (true) {
            i = Json.skipSpace(b, i, to);
            if (i >= to || b[i] == '}') {
                break;
            }
            if (b[i] == ',') {
                i++;
                continue;
            }
            if (b[i] != '"') {
                break;
            }
            int keyEnd = Json.stringEnd(b, i + 1, to);
            int key = key(b, i + 1, keyEnd);
            i = Json.skipSpace(b, keyEnd + 1, to);
            i = Json.skipSpace(b, i + 1, to);   // the colon
            int valueEnd = Json.valueEnd(b, i, to);
            if (valueEnd < 0) {
                break;
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
                case ARGS -> {
                    if (b[i] == '{') {
                        parseArgs(b, i, valueEnd, e, row);
                    }
                }
                default -> {
                    // pid, ph and anything a later build adds: not needed
                }
            }
            i = valueEnd;
        }
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
    }

    private static void parseArgs(byte[] b, int from, int to, OrtEvents e, int row) {
        int i = from + 1;
        while (true) {
            i = Json.skipSpace(b, i, to);
            if (i >= to || b[i] == '}') {
                return;
            }
            if (b[i] == ',') {
                i++;
                continue;
            }
            if (b[i] != '"') {
                return;
            }
            int keyEnd = Json.stringEnd(b, i + 1, to);
            int key = key(b, i + 1, keyEnd);
            i = Json.skipSpace(b, keyEnd + 1, to);
            i = Json.skipSpace(b, i + 1, to);
            int valueEnd = Json.valueEnd(b, i, to);
            if (valueEnd < 0) {
                return;
            }
            switch (key) {
                case OP_NAME -> e.op[row] = b[i] == '"' ? e.strings.intern(b, i + 1, valueEnd - 1) : -1;
                case PROVIDER -> e.provider[row] = b[i] == '"' ? e.strings.intern(b, i + 1, valueEnd - 1) : -1;
                case NODE_INDEX -> e.nodeIndex[row] = Json.number(b, i, valueEnd, -1);
                case INPUT_TYPE_SHAPE -> e.inputShape[row] = e.strings.intern(b, i, valueEnd);
                case OUTPUT_TYPE_SHAPE -> e.outputShape[row] = e.strings.intern(b, i, valueEnd);
                case ACTIVATION_SIZE -> e.activationSize[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                case PARAMETER_SIZE -> e.parameterSize[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                case OUTPUT_SIZE -> e.outputSize[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                case MEM_BYTES_IN_USE -> e.memInUse[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                case MEM_IN_USE_DELTA -> e.memInUseDelta[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                case MEM_ARENA_HELD -> e.memArenaHeld[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                case MEM_REQUESTED_IN_USE -> e.memRequestedInUse[row] = Json.number(b, i, valueEnd,
                        OrtEvents.ABSENT);
                case MEM_IN_USE_PEAK -> e.memInUsePeak[row] = Json.number(b, i, valueEnd, OrtEvents.ABSENT);
                default -> {
                    // thread_scheduling_stats and the rest: skipped whole
                }
            }
            i = valueEnd;
        }
    }

    /** Returns the index in {@link #KEYS} of the key {@code b[from, to)}, or -1. */
    private static int key(byte[] b, int from, int to) {
        int len = to - from;
        for (int k = 0; k < KEYS.length; k++) {
            byte[] key = KEYS[k];
            if (key.length == len && key[0] == b[from] && Arrays.equals(b, from, to, key, 0, len)) {
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
