package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * The {@code args} of one event that the reader uses; one instance is reused for every event. Keys are Kineto's
 * (libkineto's {@code MetadataFieldCatalog.h} and torch's {@code profiler_kineto.cpp}), with the spellings older
 * writers used ({@code external id}, {@code Input dims}). What the engine has a field for is read into fields; with
 * {@link #keepOthers}, every other argument is kept as text ({@link #others}), as a device's facts about its work and a
 * collective's arguments are written back.
 */
final class EventArgs {

    long externalId;
    long correlation;
    long sequence;
    long forwardThread;
    long iteration;
    int device;
    long stream;
    int deviceType;
    int deviceId;
    long bytes;
    long address;
    long totalAllocated;
    long totalReserved;
    /** Vantage's {@code Category} of a memory event (not a Kineto key), or null. */
    String category;
    /** Input shapes and dtypes, or null when the event has none. */
    long[][] shapes;
    String[] types;
    /** torch's {@code Call stack} (with_stack): frames separated by ';', the innermost first; or null. */
    String callStack;
    /** Whether to keep every argument without a field in {@link #others}. */
    boolean keepOthers;
    final Map<String, String> others = new LinkedHashMap<>();
    private final List<long[]> dims = new ArrayList<>();
    private final List<String> typeList = new ArrayList<>();

    EventArgs clear() {
        externalId = Long.MIN_VALUE;
        correlation = Long.MIN_VALUE;
        sequence = -1;
        forwardThread = -1;
        iteration = Long.MIN_VALUE;
        device = -1;
        stream = -1;
        deviceType = Integer.MIN_VALUE;
        deviceId = -1;
        bytes = 0;
        address = 0;
        totalAllocated = 0;
        totalReserved = 0;
        category = null;
        shapes = null;
        types = null;
        callStack = null;
        keepOthers = false;
        others.clear();
        return this;
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
                case "Fwd thread id" -> forwardThread = integer(p, value, -1);
                case "Trace iteration" -> iteration = integer(p, value, Long.MIN_VALUE);
                case "device" -> device = (int) integer(p, value, -1);
                case "stream" -> stream = integer(p, value, -1);
                case "Device Type" -> deviceType = (int) integer(p, value, Integer.MIN_VALUE);
                case "Device Id" -> deviceId = (int) integer(p, value, -1);
                case "Bytes" -> bytes = integer(p, value, 0);
                case "Addr" -> address = integer(p, value, 0);
                case "Total Allocated" -> totalAllocated = integer(p, value, 0);
                case "Total Reserved" -> totalReserved = integer(p, value, 0);
                case "Category" -> category = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                case "Call stack" -> callStack = value == JsonToken.VALUE_STRING ? p.getText() : skip(p);
                case "Input Dims", "Input dims" -> {
                    if (value == JsonToken.START_ARRAY && shapes == null) {
                        inputDims(p);
                    } else {
                        p.skipChildren();
                    }
                }
                case "Input type" -> {
                    if (value == JsonToken.START_ARRAY && types == null) {
                        inputTypes(p);
                    } else {
                        p.skipChildren();
                    }
                }
                // written again from the event itself, or of no use to any view
                case "Ev Idx", "Record function id", "queued", "context" -> p.skipChildren();
                default -> {
                    if (keepOthers) {
                        others.put(field, text(p, value));
                    } else {
                        p.skipChildren();
                    }
                }
            }
        }
        if (shapes == null) {
            types = null;
        } else if (types == null || types.length != shapes.length) {
            String[] given = types == null ? new String[0] : types;
            types = new String[shapes.length];
            for (int i = 0; i < types.length; i++) {
                types[i] = i < given.length ? given[i] : "";
            }
        }
    }

    /** A value as text: a scalar as written, an array or object as its JSON. */
    private static String text(JsonParser p, JsonToken value) throws IOException {
        if (value.isScalarValue()) {
            return p.getText();
        }
        StringBuilder b = new StringBuilder();
        json(p, value, b);
        return b.toString();
    }

    private static void json(JsonParser p, JsonToken value, StringBuilder b) throws IOException {
        if (value == JsonToken.START_ARRAY) {
            b.append('[');
            JsonToken t;
            boolean first = true;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                b.append(first ? "" : ",");
                first = false;
                json(p, t, b);
            }
            b.append(']');
        } else if (value == JsonToken.START_OBJECT) {
            b.append('{');
            boolean first = true;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                b.append(first ? "" : ",").append('"').append(p.currentName()).append("\":");
                first = false;
                json(p, p.nextToken(), b);
            }
            b.append('}');
        } else if (value == JsonToken.VALUE_STRING) {
            b.append('"').append(p.getText().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        } else {
            b.append(p.getText());
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

    /** {@code Input Dims}: per input its dims; a tensor list (a nested list) or a non-tensor counts as no dims. */
    private void inputDims(JsonParser p) throws IOException {
        dims.clear();
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token == JsonToken.START_ARRAY) {
                dims.add(list(p));
            } else {
                dims.add(new long[0]);
                p.skipChildren();
            }
        }
        shapes = dims.toArray(new long[0][]);
    }

    /** The dims of one input; a nested list (a tensor list's shapes) gives none. */
    private static long[] list(JsonParser p) throws IOException {
        long[] v = new long[4];
        int n = 0;
        boolean nested = false;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token == JsonToken.VALUE_NUMBER_INT) {
                if (n == v.length) {
                    v = java.util.Arrays.copyOf(v, n * 2);
                }
                v[n++] = longValue(p, -1);
            } else {
                nested |= token == JsonToken.START_ARRAY;
                p.skipChildren();
            }
        }
        return nested ? new long[0] : java.util.Arrays.copyOf(v, n);
    }

    private void inputTypes(JsonParser p) throws IOException {
        typeList.clear();
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (token == JsonToken.VALUE_STRING) {
                typeList.add(p.getText());
            } else {
                typeList.add("");
                p.skipChildren();
            }
        }
        types = typeList.toArray(new String[0]);
    }
}
