package dev.vantage.exporter.chrome.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * Streams a trace as Kineto-style Chrome trace JSON with Jackson's generator: memory stays bounded whatever the
 * number of events. Layout: {@code schemaVersion}, {@code deviceProperties}, the trace metadata,
 * {@code distributedInfo} (before the events, as HTA reads it), {@code displayTimeUnit},
 * {@code baseTimeNanoseconds}, {@code traceEvents} (host process and thread metadata, the events with
 * {@code fwdbwd} and {@code ac2g} flows, device and GC track metadata, the {@code Trace} span, {@code Record Window End} last),
 * {@code traceName}. Device work is on a process per device ({@code pid} from {@link DeviceRows}) and a row per
 * stream; GC pauses on their own row of the host process. Times are microseconds relative to
 * {@code baseTimeNanoseconds}, with exactly three decimals.
 */
final class ChromeTraceWriter {

    /** The thread id of the GC track: no Java thread has id 0. */
    static final long GC_TID = 0;

    /** Kineto's base-time granularity: 7,889,238 s, about a quarter of a year. */
    static final long BASE_TIME_STEP_NANOS = 7_889_238L * 1_000_000_000L;

    private static final JsonFactory FACTORY = new JsonFactory();

    private ChromeTraceWriter() {
    }

    static long baseTimeNanos(long startEpochNanos) {
        return Math.floorDiv(startEpochNanos, BASE_TIME_STEP_NANOS) * BASE_TIME_STEP_NANOS;
    }

    /** Formats nanoseconds as microseconds with three decimals, such as {@code 12.345}; negative values as 0. */
    static String micros(long nanos) {
        if (nanos <= 0) {
            return "0.000";
        }
        long frac = nanos % 1000;
        return (nanos / 1000) + (frac < 10 ? ".00" : frac < 100 ? ".0" : ".") + frac;
    }

    static void write(Trace trace, String traceName, OutputStream out) throws IOException {
        long base = baseTimeNanos(trace.startEpochNanos());
        long pid = trace.processId();
        Map<String, String> metadata = trace.metadata();
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            writeDeviceProperties(g, trace.devices());
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                if (!e.getKey().equals("rank") && !e.getKey().equals("world_size")) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
            }
            // HTA finds the rank with the line regex "rank":\s+(\d+): the space after the colon is required
            g.writeFieldName("distributedInfo");
            g.writeRawValue("{\"backend\": \"none\", \"rank\": " + number(metadata.get("rank"), 0)
                    + ", \"world_size\": " + number(metadata.get("world_size"), 1) + "}");
            g.writeStringField("displayTimeUnit", "ms");
            g.writeNumberField("baseTimeNanoseconds", base);
            g.writeArrayFieldStart("traceEvents");
            String metaTs = micros(trace.startEpochNanos() - base);
            metadataEvent(g, "process_name", pid, 0, metaTs, "name", trace.processName());
            metadataEvent(g, "process_labels", pid, 0, metaTs, "labels", "CPU");
            metadataEvent(g, "process_sort_index", pid, 0, metaTs, "sort_index", pid);
            long sortIndex = 0;
            for (TraceThread t : trace.threads()) {
                metadataEvent(g, "thread_name", pid, t.id(), metaTs, "name",
                        "thread " + t.id() + " (" + t.name() + ")");
                metadataEvent(g, "thread_sort_index", pid, t.id(), metaTs, "sort_index", sortIndex++);
            }
            DeviceRows rows = new DeviceRows(trace.devices());
            long lastBackwardThread = -1;
            long lastBackwardKey = -1;
            long lastBackwardEnd = 0;
            boolean gc = false;
            EventCursor c = trace.events();
            while (c.next()) {
                EventKind kind = c.kind();
                if (kind == EventKind.MEMORY || kind == EventKind.OUT_OF_MEMORY) {
                    memoryEvent(g, c, pid, base);
                    continue;
                }
                long eventPid = pid;
                long tid = c.threadId();
                if (kind.isDeviceWork()) {
                    eventPid = rows.pid(c.deviceType(), c.deviceIndex());
                    tid = c.streamId();
                    rows.stream(eventPid, tid);
                } else if (kind == EventKind.GC) {
                    tid = GC_TID;
                    gc = true;
                }
                String ts = micros(c.startEpochNanos() - base);
                g.writeStartObject();
                g.writeStringField("ph", "X");
                g.writeStringField("cat", kind.category());
                g.writeStringField("name", c.name());
                g.writeNumberField("pid", eventPid);
                g.writeNumberField("tid", tid);
                g.writeFieldName("ts");
                g.writeNumber(ts);
                g.writeFieldName("dur");
                g.writeNumber(micros(c.durationNanos()));
                writeArgs(g, c, kind);
                g.writeEndObject();
                if (kind == EventKind.CPU_OP && c.sequenceNumber() >= 0) {
                    if (c.forwardThreadId() < 0) {
                        flow(g, "fwdbwd", "s", flowKey(c.threadId(), c.sequenceNumber()), eventPid, tid, ts);
                    } else {
                        // a backward function runs inside its engine frame, both carrying the pair: only the
                        // outer one ends the flow, found by nesting in the previous backward event of the pair
                        long key = flowKey(c.forwardThreadId(), c.sequenceNumber());
                        long start = c.startEpochNanos();
                        boolean nested = c.threadId() == lastBackwardThread && key == lastBackwardKey
                                && start < lastBackwardEnd;
                        if (!nested) {
                            flow(g, "fwdbwd", "f", key, eventPid, tid, ts);
                            lastBackwardThread = c.threadId();
                            lastBackwardKey = key;
                            lastBackwardEnd = start + c.durationNanos();
                        }
                    }
                } else if (c.flowId() >= 0 && (kind == EventKind.RUNTIME || kind.isDeviceWork())) {
                    // a launch starts the flow on its host thread; the work it launched ends it on its stream
                    flow(g, "ac2g", kind == EventKind.RUNTIME ? "s" : "f", c.flowId(), eventPid, tid, ts);
                }
            }
            rows.writeMetadata(g, metaTs);
            if (gc) {
                metadataEvent(g, "thread_name", pid, GC_TID, metaTs, "name", "GC (JVM pauses)");
                metadataEvent(g, "thread_sort_index", pid, GC_TID, metaTs, "sort_index", sortIndex);
            }
            String start = micros(trace.startEpochNanos() - base);
            g.writeStartObject();
            g.writeStringField("ph", "X");
            g.writeStringField("cat", "Trace");
            g.writeFieldName("ts");
            g.writeNumber(start);
            g.writeFieldName("dur");
            g.writeNumber(micros(trace.endEpochNanos() - trace.startEpochNanos()));
            g.writeStringField("pid", "Spans");
            g.writeStringField("tid", "PyTorch Profiler");
            g.writeStringField("name", "PyTorch Profiler (0)");
            g.writeObjectFieldStart("args");
            g.writeNumberField("Op count", 0);
            g.writeEndObject();
            g.writeEndObject();
            globalInstant(g, "Iteration Start: PyTorch Profiler", "Traces", "Trace PyTorch Profiler", start);
            globalInstant(g, "Record Window End", "", "", micros(trace.endEpochNanos() - base));
            g.writeEndArray();
            g.writeStringField("traceName", traceName);
            g.writeEndObject();
        }
    }

    /**
     * The id of a forward-to-backward flow, from Kineto's key: the forward thread and the sequence number. Kept
     * below 2^53 (thread id in 16 bits, sequence number in 32) so viewers that read JSON numbers as doubles see it
     * exactly.
     */
    private static long flowKey(long thread, long seq) {
        return (thread & 0xFFFF) << 32 | seq & 0xFFFF_FFFFL;
    }

    /**
     * A Kineto flow event. {@code fwdbwd} starts on a forward op and ends on the outermost backward event of the
     * pair; {@code ac2g} starts on a runtime launch and ends on the device work it
     * launched, its id the runtime's correlation id. The end binds to the enclosing slice ({@code "bp": "e"}).
     */
    private static void flow(JsonGenerator g, String category, String phase, long id, long pid, long tid,
            String ts) throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", phase);
        g.writeNumberField("id", id);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(ts);
        g.writeStringField("cat", category);
        g.writeStringField("name", category);
        if (phase.equals("f")) {
            g.writeStringField("bp", "e");
        }
        g.writeEndObject();
    }

    private static void globalInstant(JsonGenerator g, String name, String pid, String tid, String ts)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "i");
        g.writeStringField("s", "g");
        g.writeStringField("pid", pid);
        g.writeStringField("tid", tid);
        g.writeFieldName("ts");
        g.writeNumber(ts);
        g.writeEndObject();
    }

    /** {@code deviceProperties}: one object per device, its properties as numbers where they are numbers. */
    private static void writeDeviceProperties(JsonGenerator g, List<TraceDevice> devices) throws IOException {
        g.writeArrayFieldStart("deviceProperties");
        for (TraceDevice d : devices) {
            g.writeStartObject();
            g.writeNumberField("id", d.index());
            g.writeStringField("name", d.properties().getOrDefault("name", d.type().toUpperCase(Locale.ROOT)));
            g.writeStringField("type", d.type());
            g.writeBooleanField("emulated", d.emulated());
            for (Map.Entry<String, String> p : new TreeMap<>(d.properties()).entrySet()) {
                if (p.getKey().equals("name")) {
                    continue;
                }
                writeValue(g, p.getKey(), p.getValue());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** Writes a string value as a number when it is an integer, as Kineto writes device facts. */
    private static void writeValue(JsonGenerator g, String key, String value) throws IOException {
        if (value.matches("-?\\d{1,18}")) {
            g.writeNumberField(key, Long.parseLong(value));
        } else {
            g.writeStringField(key, value);
        }
    }

    private static String number(String value, long fallback) {
        return value != null && value.matches("\\d{1,18}") ? value : Long.toString(fallback);
    }

    /**
     * An allocation, free or failed allocation as Kineto writes it: an instant on the allocating thread, with the
     * device as c10's {@code DeviceType} number (CPU 0, MPS 13, PrivateUse1 20).
     */
    private static void memoryEvent(JsonGenerator g, EventCursor c, long pid, long base) throws IOException {
        boolean oom = c.kind() == EventKind.OUT_OF_MEMORY;
        g.writeStartObject();
        g.writeStringField("ph", "i");
        g.writeStringField("cat", c.kind().category());
        g.writeStringField("s", "t");
        g.writeStringField("name", oom ? "[OutOfMemory]" : "[memory]");
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", c.threadId());
        g.writeFieldName("ts");
        g.writeNumber(micros(c.startEpochNanos() - base));
        g.writeObjectFieldStart("args");
        String type = c.deviceType();
        g.writeNumberField("Device Type", type.equals("cpu") ? 0 : type.equals("mps") ? 13 : 20);
        g.writeNumberField("Device Id", c.deviceIndex());
        if (!oom) {
            g.writeNumberField("Addr", c.memoryAddress());
        }
        g.writeNumberField("Bytes", c.memoryBytes());
        g.writeNumberField("Total Allocated", c.memoryTotalAllocated());
        g.writeNumberField("Total Reserved", c.memoryTotalReserved());
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Kineto's {@code args} keys for what the event carries. */
    private static void writeArgs(JsonGenerator g, EventCursor c, EventKind kind) throws IOException {
        g.writeObjectFieldStart("args");
        if (c.correlationId() >= 0) {
            g.writeNumberField("External id", c.correlationId());
        }
        if (kind.isDeviceWork()) {
            g.writeNumberField("device", c.deviceIndex());
            g.writeNumberField("stream", c.streamId());
        }
        if (c.flowId() >= 0 && (kind == EventKind.RUNTIME || kind.isDeviceWork())) {
            g.writeNumberField("correlation", c.flowId());
        }
        if (kind == EventKind.RUNTIME || kind.isDeviceWork()) {
            Map<String, String> args = c.args();
            if (!args.isEmpty()) {
                for (Map.Entry<String, String> a : args.entrySet()) {
                    writeValue(g, a.getKey(), a.getValue());
                }
            }
        }
        if (c.sequenceNumber() >= 0) {
            g.writeNumberField("Sequence number", c.sequenceNumber());
        }
        if (c.forwardThreadId() >= 0) {
            g.writeNumberField("Fwd thread id", c.forwardThreadId());
        }
        int inputs = c.inputCount();
        if (inputs > 0) {
            g.writeArrayFieldStart("Input Dims");
            for (int i = 0; i < inputs; i++) {
                long[] shape = c.inputShape(i);
                g.writeArray(shape, 0, shape.length);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("Input type");
            for (int i = 0; i < inputs; i++) {
                g.writeString(c.inputType(i));
            }
            g.writeEndArray();
        }
        List<String> stack = c.stack();
        if (!stack.isEmpty()) {
            g.writeStringField("Call stack", String.join(";", stack));
        }
        g.writeEndObject();
    }

    static void metadataEvent(JsonGenerator g, String name, long pid, long tid, String ts, String argName,
            Object value) throws IOException {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "M");
        g.writeFieldName("ts");
        g.writeNumber(ts);
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", tid);
        g.writeObjectFieldStart("args");
        if (value instanceof Long l) {
            g.writeNumberField(argName, l);
        } else {
            g.writeStringField(argName, String.valueOf(value));
        }
        g.writeEndObject();
        g.writeEndObject();
    }
}
