package dev.vantage.exporter.perfetto.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import dev.vantage.perfetto.format.proto.DebugAnnotation;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/**
 * An event's arguments as debug annotations, with the chrome exporter's keys and values (Kineto's {@code args}):
 * {@code External id}, {@code device} and {@code stream} of device work, the runtime {@code correlation}, the
 * device's own facts, {@code Sequence number}, {@code Fwd thread id}, {@code Input Dims} and {@code Input type}
 * (as the JSON text Kineto writes, interned: shapes repeat), {@code Call stack}; for memory events Kineto's
 * {@code Device Type}, {@code Device Id}, {@code Addr}, {@code Bytes}, {@code Total Allocated},
 * {@code Total Reserved} and {@code Category}. Integers are integers, other values interned strings.
 */
final class EventArgs {

    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,18}");
    /** Keys Kineto writes as strings even when they look like numbers. */
    private static final Set<String> TEXT_KEYS = Set.of("Process Group Name", "Process Group Description",
            "Process Group Ranks", "Collective name", "dtype");

    private final Packets packets;
    private final DebugAnnotation.Builder annotation = DebugAnnotation.newBuilder();
    private final int externalId;
    private final int device;
    private final int stream;
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

    EventArgs(Packets packets) {
        this.packets = packets;
        externalId = packets.stringId("External id");
        device = packets.stringId("device");
        stream = packets.stringId("stream");
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
            integer(lane, e, externalId, c.correlationId());
        }
        boolean device = kind.isDeviceWork();
        if (device) {
            integer(lane, e, this.device, c.deviceIndex());
            integer(lane, e, stream, c.streamId());
        }
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
            text.setLength(0);
            text.append('[');
            for (int i = 0; i < inputs; i++) {
                long[] shape = c.inputShape(i);
                text.append(i == 0 ? "[" : ", [");
                for (int d = 0; d < shape.length; d++) {
                    text.append(d == 0 ? "" : ", ").append(shape[d]);
                }
                text.append(']');
            }
            string(lane, e, inputDims, text.append(']').toString());
            text.setLength(0);
            text.append('[');
            for (int i = 0; i < inputs; i++) {
                Json.quote(text.append(i == 0 ? "" : ", "), c.inputType(i));
            }
            string(lane, e, inputType, text.append(']').toString());
        }
        List<String> stack = c.stack();
        if (!stack.isEmpty()) {
            string(lane, e, callStack, String.join(";", stack));
        }
    }

    /**
     * Adds the arguments of an allocation, free or failed allocation: the device as c10's {@code DeviceType} number
     * (CPU 0, MPS 13, PrivateUse1 20).
     */
    void memory(EventCursor c, boolean oom, Lane lane, TrackEvent.Builder e) {
        String type = c.deviceType();
        integer(lane, e, deviceType, type.equals("cpu") ? 0 : type.equals("mps") ? 13 : 20);
        integer(lane, e, deviceId, c.deviceIndex());
        if (!oom) {
            integer(lane, e, addr, c.memoryAddress());
        }
        integer(lane, e, bytes, c.memoryBytes());
        integer(lane, e, totalAllocated, c.memoryTotalAllocated());
        integer(lane, e, totalReserved, c.memoryTotalReserved());
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
        e.addDebugAnnotations(annotation.clear().setNameIid(lane.annotationName(name))
                .setStringValueIid(lane.string(packets.stringId(value))).build());
    }
}
