package dev.vantage.trace.engine.write;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;

import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceThread;
import dev.vantage.trace.engine.DeviceNames;

/**
 * Streams a trace as Kineto-style Chrome trace JSON with Jackson's generator: memory stays bounded whatever the
 * number of events. Layout: {@code schemaVersion}, {@code deviceProperties}, the trace metadata,
 * {@code distributedInfo} (before the events, as HTA reads it), {@code displayTimeUnit},
 * {@code baseTimeNanoseconds}, {@code traceEvents} (host process and thread metadata, the events with
 * {@code fwdbwd} and {@code ac2g} flows (one pair per device event: {@link LaunchFlows}), device and GC track
 * metadata, the {@code Trace} span, {@code Record Window End} last),
 * {@code traceName}. Device work is on a process per device ({@code pid} from {@link DeviceProcesses}) and a row per
 * stream; GC pauses on their own row of the host process. Times are microseconds relative to
 * {@code baseTimeNanoseconds} (see {@link #baseTimeNanos}), with exactly three decimals.
 */
public final class KinetoJsonWriter {

    /** The thread id of the GC track: no Java thread has id 0. */
    static final long GC_TID = 0;

    /** Kineto's base-time granularity: 7,889,238 s, about a quarter of a year. */
    static final long BASE_TIME_STEP_NANOS = 7_889_238L * 1_000_000_000L;

    private static final JsonFactory FACTORY = new JsonFactory();

    // Names and values every event repeats, quoted and encoded once: the generator copies their bytes
    private static final SerializedString PH = new SerializedString("ph");
    private static final SerializedString CAT = new SerializedString("cat");
    private static final SerializedString NAME = new SerializedString("name");
    private static final SerializedString PID = new SerializedString("pid");
    private static final SerializedString TID = new SerializedString("tid");
    private static final SerializedString TS = new SerializedString("ts");
    private static final SerializedString DUR = new SerializedString("dur");
    private static final SerializedString ID = new SerializedString("id");
    private static final SerializedString BP = new SerializedString("bp");
    private static final SerializedString ARGS = new SerializedString("args");
    /**
     * Metadata this writer writes from the trace itself, not as text: a trace read from a file carries the file's
     * top-level fields as metadata, and writing them again would give the file two of each key.
     */
    private static final java.util.Set<String> WRITTEN_KEYS = java.util.Set.of("rank", "world_size",
            "distributed_backend", "schemaVersion", "displayTimeUnit", "baseTimeNanoseconds", "traceName");
    private static final SerializedString EXTERNAL_ID = new SerializedString("External id");
    private static final SerializedString DEVICE = new SerializedString("device");
    private static final SerializedString STREAM = new SerializedString("stream");
    private static final SerializedString CORRELATION = new SerializedString("correlation");
    private static final SerializedString SEQUENCE_NUMBER = new SerializedString("Sequence number");
    private static final SerializedString FWD_THREAD_ID = new SerializedString("Fwd thread id");
    private static final SerializedString INPUT_DIMS = new SerializedString("Input Dims");
    private static final SerializedString INPUT_TYPE = new SerializedString("Input type");
    private static final SerializedString COMPLETE = new SerializedString("X");
    private static final SerializedString START_FLOW = new SerializedString("s");
    private static final SerializedString END_FLOW = new SerializedString("f");
    private static final SerializedString ENCLOSING = new SerializedString("e");
    private static final SerializedString FWDBWD = new SerializedString("fwdbwd");
    private static final SerializedString AC2G = new SerializedString("ac2g");
    private static final SerializedString[] CATEGORIES = new SerializedString[EventKind.values().length];

    static {
        for (EventKind k : EventKind.values()) {
            CATEGORIES[k.ordinal()] = new SerializedString(k.category());
        }
    }

    private KinetoJsonWriter() {
    }

    /**
     * Returns the time every {@code ts} is relative to. A rank of a distributed run (its metadata names a
     * {@code rank}) takes Kineto's base, the start floored to a trimonth: every rank of a run computes the same one,
     * so tools that line ranks up on raw {@code ts} (HTA subtracts the smallest {@code ts} over all ranks) see them
     * on one clock, as they do PyTorch's. Any other trace takes its own start floored to the second: its {@code ts}
     * then needs about six digits fewer, some 4 % of the file.
     */
    static long baseTimeNanos(long startEpochNanos, boolean distributed) {
        long step = distributed ? BASE_TIME_STEP_NANOS : 1_000_000_000L;
        return Math.floorDiv(startEpochNanos, step) * step;
    }

    /**
     * Writes a trace to a file atomically ({@link TraceFiles#writePipelined}): gzip-compressed when the name ends in
     * {@code .gz}, encoding on the caller's thread while another compresses and writes. The chrome exporter's format,
     * and the trace file of the tensorboard exporter's run directory.
     *
     * @throws IOException if the file cannot be written; nothing is then left under its name
     */
    public static void export(Trace trace, Path file) throws IOException {
        Objects.requireNonNull(trace, "trace");
        Path target = file.toAbsolutePath();
        TraceFiles.writePipelined(target, "vantage-chrome-export", out -> write(trace, target.toString(), out));
    }

    /**
     * Writes a trace to a stream, and closes it (as the JSON generator closes its target).
     *
     * @param traceName the {@code traceName} field: the file's path, as Kineto writes it
     */
    public static void write(Trace trace, String traceName, OutputStream out) throws IOException {
        Map<String, String> metadata = trace.metadata();
        long base = baseTimeNanos(trace.startEpochNanos(), metadata.containsKey("rank"));
        long pid = trace.processId();
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            g.writeFieldName("deviceProperties");
            g.writeRawValue(KinetoMetadata.deviceProperties(trace.devices()));
            for (Map.Entry<String, String> e : metadata.entrySet()) {
                if (!WRITTEN_KEYS.contains(e.getKey())) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
            }
            g.writeFieldName("distributedInfo");
            g.writeRawValue(KinetoMetadata.distributedInfo(metadata));
            g.writeStringField("displayTimeUnit", "ms");
            g.writeNumberField("baseTimeNanoseconds", base);
            g.writeArrayFieldStart("traceEvents");
            String startTs = MicrosText.of(trace.startEpochNanos() - base);
            metadataEvent(g, "process_name", pid, 0, startTs, "name", trace.processName());
            metadataEvent(g, "process_labels", pid, 0, startTs, "labels", "CPU");
            metadataEvent(g, "process_sort_index", pid, 0, startTs, "sort_index", pid);
            long sortIndex = 0;
            for (TraceThread t : trace.threads()) {
                metadataEvent(g, "thread_name", pid, t.id(), startTs, "name",
                        "thread " + t.id() + " (" + t.name() + ")");
                metadataEvent(g, "thread_sort_index", pid, t.id(), startTs, "sort_index", sortIndex++);
            }
            DeviceProcesses rows = new DeviceProcesses(trace.devices());
            MicrosText time = new MicrosText();
            LaunchFlows launches = LaunchFlows.of(trace, base);
            long lastBackwardThread = -1;
            long lastBackwardKey = -1;
            long lastBackwardEnd = 0;
            boolean gc = false;
            EventCursor c = trace.events();
            while (c.next()) {
                EventKind kind = c.kind();
                if (kind == EventKind.MEMORY || kind == EventKind.OUT_OF_MEMORY) {
                    memoryEvent(g, c, pid, time, base);
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
                long ts = c.startEpochNanos() - base;
                g.writeStartObject();
                g.writeFieldName(PH);
                g.writeString(COMPLETE);
                g.writeFieldName(CAT);
                g.writeString(CATEGORIES[kind.ordinal()]);
                g.writeFieldName(NAME);
                g.writeString(c.name());
                g.writeFieldName(PID);
                g.writeNumber(eventPid);
                g.writeFieldName(TID);
                g.writeNumber(tid);
                g.writeFieldName(TS);
                time.write(g, ts);
                g.writeFieldName(DUR);
                time.write(g, c.durationNanos());
                writeArgs(g, c, kind);
                g.writeEndObject();
                if (kind == EventKind.CPU_OP && c.sequenceNumber() >= 0) {
                    if (c.forwardThreadId() < 0) {
                        flow(g, FWDBWD, START_FLOW, flowKey(c.threadId(), c.sequenceNumber()), eventPid, tid,
                                time, ts);
                    } else {
                        // a backward function runs inside its engine frame, both carrying the pair: only the
                        // outer one ends the flow, found by nesting in the previous backward event of the pair
                        long key = flowKey(c.forwardThreadId(), c.sequenceNumber());
                        long start = c.startEpochNanos();
                        boolean nested = c.threadId() == lastBackwardThread && key == lastBackwardKey
                                && start < lastBackwardEnd;
                        if (!nested) {
                            flow(g, FWDBWD, END_FLOW, key, eventPid, tid, time, ts);
                            lastBackwardThread = c.threadId();
                            lastBackwardKey = key;
                            lastBackwardEnd = start + c.durationNanos();
                        }
                    }
                } else if (c.flowId() >= 0 && (kind == EventKind.RUNTIME || kind.isDeviceWork())) {
                    long id = c.flowId();
                    if (!launches.shared(id)) {
                        // a launch starts the flow on its host thread; the work it launched ends it on its stream
                        flow(g, AC2G, kind == EventKind.RUNTIME ? START_FLOW : END_FLOW, id, eventPid, tid, time,
                                ts);
                    } else if (kind.isDeviceWork()) {
                        // one launch, many device events: a flow of its own for each ({@link LaunchFlows})
                        long own = launches.nextId();
                        flow(g, AC2G, START_FLOW, own, pid, launches.launchThread(id), time,
                                launches.launchTime(id));
                        flow(g, AC2G, END_FLOW, own, eventPid, tid, time, ts);
                    }
                }
            }
            rows.writeMetadata(g, startTs);
            if (gc) {
                metadataEvent(g, "thread_name", pid, GC_TID, startTs, "name", "GC (JVM pauses)");
                metadataEvent(g, "thread_sort_index", pid, GC_TID, startTs, "sort_index", sortIndex);
            }
            g.writeStartObject();
            g.writeStringField("ph", "X");
            g.writeStringField("cat", "Trace");
            g.writeFieldName("ts");
            g.writeNumber(startTs);
            g.writeFieldName("dur");
            time.write(g, trace.endEpochNanos() - trace.startEpochNanos());
            g.writeStringField("pid", "Spans");
            g.writeStringField("tid", "PyTorch Profiler");
            g.writeStringField("name", "PyTorch Profiler (0)");
            g.writeObjectFieldStart("args");
            g.writeNumberField("Op count", 0);
            g.writeEndObject();
            g.writeEndObject();
            globalInstant(g, "Iteration Start: PyTorch Profiler", "Traces", "Trace PyTorch Profiler", startTs);
            globalInstant(g, "Record Window End", "", "", MicrosText.of(trace.endEpochNanos() - base));
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
    private static void flow(JsonGenerator g, SerializedString category, SerializedString phase, long id, long pid,
            long tid, MicrosText time, long ts) throws IOException {
        g.writeStartObject();
        g.writeFieldName(PH);
        g.writeString(phase);
        g.writeFieldName(ID);
        g.writeNumber(id);
        g.writeFieldName(PID);
        g.writeNumber(pid);
        g.writeFieldName(TID);
        g.writeNumber(tid);
        g.writeFieldName(TS);
        time.write(g, ts);
        g.writeFieldName(CAT);
        g.writeString(category);
        g.writeFieldName(NAME);
        g.writeString(category);
        if (phase == END_FLOW) {
            g.writeFieldName(BP);
            g.writeString(ENCLOSING);
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

    /** Writes a string value as a number when it is an integer, as Kineto writes device facts. */
    private static void writeValue(JsonGenerator g, String key, String value) throws IOException {
        if (KinetoMetadata.isNumber(key, value)) {
            g.writeNumberField(key, Long.parseLong(value));
        } else if (KinetoMetadata.isDecimal(key, value)) {
            // a device's fractional facts (blocks per SM, memory bandwidth) stay numbers, digit for digit as read
            g.writeFieldName(key);
            g.writeNumber(value);
        } else {
            g.writeStringField(key, value);
        }
    }

    /**
     * An allocation, free or failed allocation as Kineto writes it: an instant on the allocating thread, with the
     * device as c10's {@code DeviceType} number ({@link DeviceNames#c10Number}), plus the allocation's
     * {@code Category} as the runtime declared it.
     */
    private static void memoryEvent(JsonGenerator g, EventCursor c, long pid, MicrosText time, long base)
            throws IOException {
        boolean oom = c.kind() == EventKind.OUT_OF_MEMORY;
        g.writeStartObject();
        g.writeStringField("ph", "i");
        g.writeStringField("cat", c.kind().category());
        g.writeStringField("s", "t");
        g.writeStringField("name", oom ? "[OutOfMemory]" : "[memory]");
        g.writeNumberField("pid", pid);
        g.writeNumberField("tid", c.threadId());
        g.writeFieldName("ts");
        time.write(g, c.startEpochNanos() - base);
        g.writeObjectFieldStart("args");
        String type = c.deviceType();
        g.writeNumberField("Device Type", DeviceNames.c10Number(type));
        g.writeNumberField("Device Id", c.deviceIndex());
        if (!oom) {
            g.writeNumberField("Addr", c.memoryAddress());
        }
        g.writeNumberField("Bytes", c.memoryBytes());
        g.writeNumberField("Total Allocated", c.memoryTotalAllocated());
        g.writeNumberField("Total Reserved", c.memoryTotalReserved());
        String category = c.memoryCategory();
        if (!oom && !category.isEmpty()) {
            // not a Kineto key: readers that look up the keys they know (HTA, the TensorBoard plugin) skip it
            g.writeStringField("Category", category);
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /** Kineto's {@code args} keys for what the event carries. */
    private static void writeArgs(JsonGenerator g, EventCursor c, EventKind kind) throws IOException {
        g.writeFieldName(ARGS);
        g.writeStartObject();
        if (c.correlationId() >= 0) {
            g.writeFieldName(EXTERNAL_ID);
            g.writeNumber(c.correlationId());
        }
        if (kind.isDeviceWork()) {
            g.writeFieldName(DEVICE);
            g.writeNumber(c.deviceIndex());
            g.writeFieldName(STREAM);
            g.writeNumber(c.streamId());
        }
        if (c.flowId() >= 0 && (kind == EventKind.RUNTIME || kind.isDeviceWork())) {
            g.writeFieldName(CORRELATION);
            g.writeNumber(c.flowId());
        }
        if (kind == EventKind.RUNTIME || kind.isDeviceWork() || kind == EventKind.CPU_OP
                || kind == EventKind.USER_ANNOTATION) {
            // a device's facts on its work; a collective's on record_param_comms
            Map<String, String> args = c.args();
            if (!args.isEmpty()) {
                for (Map.Entry<String, String> a : args.entrySet()) {
                    writeValue(g, a.getKey(), a.getValue());
                }
            }
        }
        if (c.sequenceNumber() >= 0) {
            g.writeFieldName(SEQUENCE_NUMBER);
            g.writeNumber(c.sequenceNumber());
        }
        if (c.forwardThreadId() >= 0) {
            g.writeFieldName(FWD_THREAD_ID);
            g.writeNumber(c.forwardThreadId());
        }
        int inputs = c.inputCount();
        if (inputs > 0) {
            g.writeFieldName(INPUT_DIMS);
            g.writeStartArray();
            for (int i = 0; i < inputs; i++) {
                long[] shape = c.inputShape(i);
                g.writeArray(shape, 0, shape.length);
            }
            g.writeEndArray();
            g.writeFieldName(INPUT_TYPE);
            g.writeStartArray();
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
