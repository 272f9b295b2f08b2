package dev.vantage.analysis.trace;

import java.io.IOException;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * The {@code args} of one event that the reader uses; one instance is reused for every event. Keys are Kineto's
 * (libkineto's {@code MetadataFieldCatalog.h} and torch's {@code profiler_kineto.cpp}), with the spellings older
 * writers used ({@code external id}, {@code Input dims}).
 */
final class EventArgs {

    long externalId;
    long correlation;
    long sequence;
    long iteration;
    int device;
    long stream;
    int deviceType;
    int deviceId;
    long bytes;
    long address;
    long totalAllocated;
    long totalReserved;
    /** {@code Collective name}, or null. */
    String collective;
    long inMessageElements;
    String dtype;
    // kernel launch facts: -1 (or NaN) when the trace has none
    final long[] grid = new long[3];
    final long[] block = new long[3];
    long registers;
    long sharedMemory;
    double blocksPerSm;
    double warpsPerSm;
    double occupancy;
    /** Bytes of the inputs from {@code Input Dims} and {@code Input type}, when {@link #wantInputBytes}. */
    long inputBytes;
    boolean wantInputBytes;
    private final StringBuilder shapes = new StringBuilder();
    private final LongList inputElements = new LongList();

    EventArgs clear() {
        externalId = Long.MIN_VALUE;
        correlation = Long.MIN_VALUE;
        sequence = -1;
        iteration = Long.MIN_VALUE;
        device = -1;
        stream = -1;
        deviceType = Integer.MIN_VALUE;
        deviceId = -1;
        bytes = 0;
        address = 0;
        totalAllocated = 0;
        totalReserved = 0;
        collective = null;
        inMessageElements = -1;
        dtype = null;
        grid[0] = -1;
        block[0] = -1;
        registers = -1;
        sharedMemory = -1;
        blocksPerSm = Double.NaN;
        warpsPerSm = Double.NaN;
        occupancy = Double.NaN;
        inputBytes = -1;
        wantInputBytes = false;
        shapes.setLength(0);
        inputElements.clear();
        return this;
    }

    /** The input shapes in torch_npu's notation: dims joined by commas, inputs by semicolons. */
    String shapes() {
        return shapes.toString();
    }

    /** The id of the input shapes interned without making a string when they were seen before; 0 for none. */
    int shapesId(Interner interner) {
        return shapes.length() == 0 ? 0 : interner.intern(shapes);
    }

    /** Whether the event carries a kernel's launch geometry. */
    boolean hasGeometry() {
        return grid[0] >= 0 && block[0] >= 0;
    }

    /** The message bytes of a collective: {@code In msg nelems} times the size of {@code dtype}, or -1. */
    long messageBytes() {
        if (inMessageElements >= 0 && dtype != null) {
            int size = elementSize(dtype);
            return size > 0 ? inMessageElements * size : -1;
        }
        return -1;
    }

    /** Reads the args object; the parser is on its {@code START_OBJECT} and is left on its {@code END_OBJECT}. */
    void read(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "External id", "external id" -> externalId = integer(p, value, Long.MIN_VALUE);
                case "correlation" -> correlation = integer(p, value, Long.MIN_VALUE);
                case "Sequence number" -> sequence = integer(p, value, -1);
                case "Trace iteration" -> iteration = integer(p, value, Long.MIN_VALUE);
                case "device" -> device = (int) integer(p, value, -1);
                case "stream" -> stream = integer(p, value, -1);
                case "Device Type" -> deviceType = (int) integer(p, value, Integer.MIN_VALUE);
                case "Device Id" -> deviceId = (int) integer(p, value, -1);
                case "Bytes" -> bytes = integer(p, value, 0);
                case "Addr" -> address = integer(p, value, 0);
                case "Total Allocated" -> totalAllocated = integer(p, value, 0);
                case "Total Reserved" -> totalReserved = integer(p, value, 0);
                case "Collective name" -> collective = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                case "In msg nelems", "In msg size" -> inMessageElements = integer(p, value, -1);
                case "dtype" -> dtype = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                case "grid" -> triple(p, value, grid);
                case "block" -> triple(p, value, block);
                case "registers per thread" -> registers = integer(p, value, -1);
                case "shared memory" -> sharedMemory = integer(p, value, -1);
                case "blocks per SM" -> blocksPerSm = real(p, value);
                case "warps per SM" -> warpsPerSm = real(p, value);
                case "est. achieved occupancy %" -> occupancy = real(p, value);
                case "Input Dims", "Input dims" -> {
                    if (value == JsonToken.START_ARRAY && shapes.length() == 0) {
                        inputDims(p);
                    } else {
                        p.skipChildren();
                    }
                }
                case "Input type" -> {
                    if (value == JsonToken.START_ARRAY && wantInputBytes) {
                        inputTypes(p);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    private static String skip(JsonParser p) throws IOException {
        p.skipChildren();
        return null;
    }

    /** An integer written as a number or as a string of digits (Kineto writes some ids so). */
    private static long integer(JsonParser p, JsonToken value, long absent) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            return longValue(p, absent);
        }
        if (value == JsonToken.VALUE_NUMBER_FLOAT) {
            return (long) p.getDoubleValue();
        }
        if (value == JsonToken.VALUE_STRING) {
            try {
                return Long.parseLong(p.getText().strip());
            } catch (NumberFormatException e) {
                return absent;
            }
        }
        p.skipChildren();
        return absent;
    }

    /**
     * The current integer token's value, or {@code absent} when it does not fit a long: a number no writer meant
     * (a damaged file) is read as absent rather than refusing the trace.
     */
    static long longValue(JsonParser p, long absent) throws IOException {
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            return absent;
        }
        return p.getLongValue();
    }

    private static double real(JsonParser p, JsonToken value) throws IOException {
        if (value.isNumeric()) {
            return p.getDoubleValue();
        }
        p.skipChildren();
        return Double.NaN;
    }

    private static void triple(JsonParser p, JsonToken value, long[] into) throws IOException {
        if (value != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        int i = 0;
        JsonToken t;
        long[] v = {1, 1, 1};
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            if (t == JsonToken.VALUE_NUMBER_INT && i < 3) {
                v[i] = longValue(p, 1);
            } else {
                p.skipChildren();
            }
            i++;
        }
        System.arraycopy(v, 0, into, 0, 3);
    }

    private void inputDims(JsonParser p) throws IOException {
        int input = 0;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (input++ > 0) {
                shapes.append(';');
            }
            if (token == JsonToken.START_ARRAY) {
                inputElements.add(list(p));
            } else {
                inputElements.add(0);
                p.skipChildren();
            }
        }
        if (wantInputBytes && inputBytes >= 0) {
            // the types came first: nothing to do, sizes are matched in inputTypes only
            inputBytes = -1;
        }
    }

    /** The dims of one input; a nested list (a tensor list's shapes) in brackets. Returns its element count. */
    private long list(JsonParser p) throws IOException {
        int i = 0;
        long elements = 1;
        boolean nested = false;
        long nestedElements = 0;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (i++ > 0) {
                shapes.append(',');
            }
            if (token == JsonToken.START_ARRAY) {
                shapes.append('[');
                nested = true;
                nestedElements += list(p);
                shapes.append(']');
            } else if (token.isScalarValue()) {
                shapes.append(p.getText());
                elements *= token == JsonToken.VALUE_NUMBER_INT ? Math.max(0, longValue(p, 0)) : 0;
            } else {
                p.skipChildren();
            }
        }
        return nested ? nestedElements : i == 0 ? 0 : elements;
    }

    /** Input types after Input Dims: the bytes of the tensors whose element size is known. */
    private void inputTypes(JsonParser p) throws IOException {
        int input = 0;
        long total = 0;
        boolean any = false;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token == JsonToken.VALUE_STRING && input < inputElements.size()) {
                int size = elementSize(p.getText());
                if (size > 0) {
                    total += inputElements.get(input) * size;
                    any = true;
                }
            } else {
                p.skipChildren();
            }
            input++;
        }
        inputBytes = any ? total : -1;
    }

    /** Bytes of one element of a dtype as torch names them in traces ({@code float}, {@code c10::Half}, {@code Float}). */
    static int elementSize(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        if (t.startsWith("c10::")) {
            t = t.substring(5);
        }
        return switch (t) {
            case "double", "long int", "long", "int64", "complexfloat", "c10::complex<float>" -> 8;
            case "float", "int", "int32", "float32" -> 4;
            case "half", "bfloat16", "short", "int16", "float16" -> 2;
            case "bool", "char", "signed char", "unsigned char", "byte", "int8", "uint8", "float8_e4m3fn",
                    "float8_e5m2" -> 1;
            case "complexdouble", "c10::complex<double>" -> 16;
            default -> 0;
        };
    }
}
