package dev.vantage.exporter.chrome.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceThread;

/**
 * Streams a trace as Kineto-style Chrome trace JSON with Jackson's generator: memory stays bounded whatever the
 * number of events. Layout: {@code schemaVersion}, {@code deviceProperties}, the trace metadata,
 * {@code displayTimeUnit}, {@code baseTimeNanoseconds}, {@code traceEvents} (process and thread metadata, then
 * the events, then {@code Record Window End}), {@code traceName}. Times are microseconds relative to
 * {@code baseTimeNanoseconds}, with exactly three decimals.
 */
final class ChromeTraceWriter {

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
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            g.writeArrayFieldStart("deviceProperties");
            g.writeEndArray();
            for (Map.Entry<String, String> e : trace.metadata().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
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
            EventCursor c = trace.events();
            while (c.next()) {
                if (c.kind() == EventKind.MEMORY || c.kind() == EventKind.OUT_OF_MEMORY) {
                    memoryEvent(g, c, pid, base);
                    continue;
                }
                g.writeStartObject();
                g.writeStringField("ph", "X");
                g.writeStringField("cat", c.kind().category());
                g.writeStringField("name", c.name());
                g.writeNumberField("pid", pid);
                g.writeNumberField("tid", c.threadId());
                g.writeFieldName("ts");
                g.writeNumber(micros(c.startEpochNanos() - base));
                g.writeFieldName("dur");
                g.writeNumber(micros(c.durationNanos()));
                writeArgs(g, c);
                g.writeEndObject();
            }
            g.writeStartObject();
            g.writeStringField("name", "Record Window End");
            g.writeStringField("ph", "i");
            g.writeStringField("s", "g");
            g.writeStringField("pid", "");
            g.writeStringField("tid", "");
            g.writeFieldName("ts");
            g.writeNumber(micros(trace.endEpochNanos() - base));
            g.writeEndObject();
            g.writeEndArray();
            g.writeStringField("traceName", traceName);
            g.writeEndObject();
        }
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
    private static void writeArgs(JsonGenerator g, EventCursor c) throws IOException {
        g.writeObjectFieldStart("args");
        g.writeNumberField("External id", c.correlationId());
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

    private static void metadataEvent(JsonGenerator g, String name, long pid, long tid, String ts, String argName,
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
