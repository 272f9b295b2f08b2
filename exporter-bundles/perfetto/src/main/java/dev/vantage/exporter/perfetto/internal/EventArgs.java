package dev.vantage.exporter.perfetto.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import dev.vantage.perfetto.format.proto.DebugAnnotation;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.DeviceNames;
import dev.vantage.trace.engine.write.KinetoMetadata;

/**
 * An event's arguments as debug annotations, with the chrome exporter's keys and values (Kineto's {@code args}):
 * the runtime {@code correlation}, the device's own facts, {@code Sequence number}, {@code Fwd thread id}, {@code Input Dims} and {@code Input type}
 * (as the JSON text Kineto writes, interned: shapes repeat), {@code Call stack}; for memory events Kineto's
 * {@code Device Type}, {@code Device Id}, {@code Addr}, {@code Bytes} and {@code Category}. Integers are
 * integers, other values interned strings. Three of Kineto's keys are said the Perfetto way instead: the
 * {@code External id} an op shares with the device work it launched is the event's {@code correlation_id}
 * (Perfetto highlights the slices that share one together); the {@code device} and {@code stream} of device work
 * are its track (the device's process, the stream's thread); an allocation's {@code Total Allocated} and
 * {@code Total Reserved} are the values of its device's memory counters at that time (a failed allocation, which
 * sets no counter, keeps them).
 */
final class EventArgs {

    private static final int MAX_SHAPES = 4096;
    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,18}");
    /** Keys Kineto writes as strings even when they look like numbers. */
    private static final Set<String> TEXT_KEYS = Set.of("Process Group Name", "Process Group Description",
            "Process Group Ranks", "Collective name", "dtype");

    private final Packets packets;
    private final DebugAnnotation.Builder annotation = DebugAnnotation.newBuilder();
    private final int correlation;
    private final int sequenceNumber;
    private final int fwdThreadId;
    private final int inputDims;
    private final int inputType;
    private final int callStack;
    private final int deviceType;
    private final int deviceId;
    private final int addr;
    private final int bytes;
    private final int totalAllocated;
    private final int totalReserved;
    private final int category;
    private final StringBuilder text = new StringBuilder();
    /** Input shapes seen, at most {@link #MAX_SHAPES}, by a hash of their values. */
    private final Map<Long, Shapes> shapes = new HashMap<>();

    EventArgs(Packets packets) {
        this.packets = packets;
        correlation = packets.stringId("correlation");
        sequenceNumber = packets.stringId("Sequence number");
        fwdThreadId = packets.stringId("Fwd thread id");
        inputDims = packets.stringId("Input Dims");
        inputType = packets.stringId("Input type");
        callStack = packets.stringId("Call stack");
        deviceType = packets.stringId("Device Type");
        deviceId = packets.stringId("Device Id");
        addr = packets.stringId("Addr");
        bytes = packets.stringId("Bytes");
        totalAllocated = packets.stringId("Total Allocated");
        totalReserved = packets.stringId("Total Reserved");
        category = packets.stringId("Category");
    }

    /** Adds the arguments of a slice event, as the chrome exporter writes them. */
    void slice(EventCursor c, EventKind kind, Lane lane, TrackEvent.Builder e) {
        if (c.correlationId() >= 0) {
            // Kineto's External id joins an op and the device work it launched: Perfetto's correlation id
            e.setCorrelationId(c.correlationId());
        }
        boolean device = kind.isDeviceWork();
        if (c.flowId() >= 0 && (kind == EventKind.RUNTIME || device)) {
            integer(lane, e, correlation, c.flowId());
        }
        if (kind == EventKind.RUNTIME || device || kind == EventKind.CPU_OP || kind == EventKind.USER_ANNOTATION) {
            Map<String, String> args = c.args();
            if (!args.isEmpty()) {
                for (Map.Entry<String, String> a : args.entrySet()) {
                    value(lane, e, a.getKey(), a.getValue());
                }
            }
        }
        if (c.sequenceNumber() >= 0) {
            integer(lane, e, sequenceNumber, c.sequenceNumber());
        }
        if (c.forwardThreadId() >= 0) {
            integer(lane, e, fwdThreadId, c.forwardThreadId());
        }
        int inputs = c.inputCount();
        if (inputs > 0) {
            Shapes shapes = shapes(c, inputs);
            stringId(lane, e, inputDims, shapes.dimsText);
            stringId(lane, e, inputType, shapes.typesText);
        }
        List<String> stack = c.stack();
        if (!stack.isEmpty()) {
            string(lane, e, callStack, String.join(";", stack));
        }
    }

    /**
     * Adds the arguments of an allocation, free or failed allocation: the device as c10's {@code DeviceType} number
     * ({@link DeviceNames#c10Number}).
     */
    void memory(EventCursor c, boolean oom, Lane lane, TrackEvent.Builder e) {
        String type = c.deviceType();
        integer(lane, e, deviceType, DeviceNames.c10Number(type));
        integer(lane, e, deviceId, c.deviceIndex());
        if (!oom) {
            integer(lane, e, addr, c.memoryAddress());
        }
        integer(lane, e, bytes, c.memoryBytes());
        if (oom) {
            // an allocation's totals are the values of the memory counters at its time; a failed one sets none
            integer(lane, e, totalAllocated, c.memoryTotalAllocated());
            integer(lane, e, totalReserved, c.memoryTotalReserved());
        }
        String cat = c.memoryCategory();
        if (!oom && !cat.isEmpty()) {
            string(lane, e, category, cat);
        }
    }

    /** A value as Kineto writes a device fact: an integer when it is one, text otherwise. */
    void value(Lane lane, TrackEvent.Builder e, String key, String value) {
        int name = packets.stringId(key);
        if (!TEXT_KEYS.contains(key) && INTEGER.matcher(value).matches()) {
            integer(lane, e, name, Long.parseLong(value));
        } else {
            string(lane, e, name, value);
        }
    }

    void integer(Lane lane, TrackEvent.Builder e, int name, long value) {
        e.addDebugAnnotations(annotation.clear().setNameIid(lane.annotationName(name)).setIntValue(value).build());
    }

    void string(Lane lane, TrackEvent.Builder e, int name, String value) {
        stringId(lane, e, name, packets.stringId(value));
    }

    private void stringId(Lane lane, TrackEvent.Builder e, int name, int value) {
        e.addDebugAnnotations(annotation.clear().setNameIid(lane.annotationName(name))
                .setStringValueIid(lane.string(value)).build());
    }

    /**
     * The JSON texts of an event's input shapes and types, as ids of the trace's strings. Ops repeat a few
     * shapes, so the texts are kept by a hash of the values (checked on a hit): most events build no text.
     */
    private Shapes shapes(EventCursor c, int inputs) {
        long[][] dims = new long[inputs][];
        String[] types = new String[inputs];
        long hash = inputs;
        for (int i = 0; i < inputs; i++) {
            dims[i] = c.inputShape(i);
            types[i] = c.inputType(i);
            for (long d : dims[i]) {
                hash = hash * 31 + d;
            }
            hash = (hash * 31 + dims[i].length) * 31 + types[i].hashCode();
        }
        Shapes known = shapes.get(hash);
        if (known != null && known.matches(dims, types)) {
            return known;
        }
        text.setLength(0);
        text.append('[');
        for (int i = 0; i < inputs; i++) {
            text.append(i == 0 ? "[" : ", [");
            for (int d = 0; d < dims[i].length; d++) {
                text.append(d == 0 ? "" : ", ").append(dims[i][d]);
            }
            text.append(']');
        }
        int dimsText = packets.stringId(text.append(']').toString());
        text.setLength(0);
        text.append('[');
        for (int i = 0; i < inputs; i++) {
            KinetoMetadata.quote(text.append(i == 0 ? "" : ", "), types[i]);
        }
        Shapes s = new Shapes(dims, types, dimsText, packets.stringId(text.append(']').toString()));
        if (shapes.size() < MAX_SHAPES) {
            shapes.put(hash, s);
        }
        return s;
    }

    /** One set of input shapes and types, and the ids of their texts. */
    private record Shapes(long[][] dims, String[] types, int dimsText, int typesText) {

        boolean matches(long[][] otherDims, String[] otherTypes) {
            return Arrays.deepEquals(dims, otherDims) && Arrays.equals(types, otherTypes);
        }
    }
}
