package dev.vantage.exporter.parquet.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceThread;

/**
 * The four tables of a trace and the pass that fills them. Every table starts with {@code job_id}, {@code run_id},
 * {@code rank}, {@code world_size}; times are {@code INT64} nanoseconds since the Unix epoch ({@code _ns}), so that
 * the same SQL computes with them on every engine. The column order here is the schema's; docs/parquet-schema.md documents it
 * and {@code ParquetTraceExporterTest} holds the two to each other.
 *
 * <p>Two passes over the events: the first finds the {@code ProfilerStep#N} spans, so that the second can give every
 * row its step while it streams the events into the files. Memory is the steps and the writers' row groups.
 */
final class TraceTables {

    static final String EVENTS = "events.parquet";
    static final String KERNELS = "kernels.parquet";
    static final String MEMORY = "memory.parquet";
    static final String STEPS = "steps.parquet";

    // events: host ops, annotations, runtime calls and GC pauses
    static final MessageType EVENTS_SCHEMA = run(Types.buildMessage())
            .required(PrimitiveTypeName.INT64).named("event_id")
            .optional(PrimitiveTypeName.INT64).named("parent_id")
            .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("kind")
            .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("name")
            .required(PrimitiveTypeName.INT64).named("thread_id")
            .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("thread_name")
            .required(PrimitiveTypeName.INT64).named("start_ns")
            .required(PrimitiveTypeName.INT64).named("end_ns")
            .required(PrimitiveTypeName.INT64).named("duration_ns")
            .required(PrimitiveTypeName.INT64).named("self_ns")
            .required(PrimitiveTypeName.INT64).named("device_self_ns")
            .required(PrimitiveTypeName.INT64).named("device_total_ns")
            .optional(PrimitiveTypeName.INT64).named("step")
            .optional(PrimitiveTypeName.INT64).named("correlation_id")
            .optional(PrimitiveTypeName.INT64).named("sequence_number")
            .required(PrimitiveTypeName.INT64).named("flops")
            .named("events");

    // kernels: device work (kernels, copies, fills)
    static final MessageType KERNELS_SCHEMA = run(Types.buildMessage())
            .required(PrimitiveTypeName.INT64).named("event_id")
            .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("kind")
            .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("name")
            .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("device_type")
            .required(PrimitiveTypeName.INT32).named("device_index")
            .required(PrimitiveTypeName.INT64).named("stream_id")
            .required(PrimitiveTypeName.INT64).named("start_ns")
            .required(PrimitiveTypeName.INT64).named("end_ns")
            .required(PrimitiveTypeName.INT64).named("duration_ns")
            .optional(PrimitiveTypeName.INT64).named("correlation_id")
            .optional(PrimitiveTypeName.INT64).named("flow_id")
            .required(PrimitiveTypeName.BOOLEAN).named("communication")
            .optional(PrimitiveTypeName.INT64).named("step")
            .named("kernels");

    // memory: allocations, frees and out-of-memory events
    static final MessageType MEMORY_SCHEMA = run(Types.buildMessage())
            .required(PrimitiveTypeName.INT64).named("event_id")
            .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("device_type")
            .required(PrimitiveTypeName.INT32).named("device_index")
            .required(PrimitiveTypeName.INT64).named("thread_id")
            .required(PrimitiveTypeName.INT64).named("time_ns")
            .required(PrimitiveTypeName.INT64).named("bytes")
            .required(PrimitiveTypeName.INT64).named("address")
            .required(PrimitiveTypeName.INT64).named("total_allocated")
            .required(PrimitiveTypeName.INT64).named("total_reserved")
            .optional(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("category")
            .required(PrimitiveTypeName.BOOLEAN).named("out_of_memory")
            .optional(PrimitiveTypeName.INT64).named("op_id")
            .optional(PrimitiveTypeName.INT64).named("step")
            .named("memory");

    // steps: one row per ProfilerStep#N span
    static final MessageType STEPS_SCHEMA = run(Types.buildMessage())
            .required(PrimitiveTypeName.INT64).named("step")
            .required(PrimitiveTypeName.INT64).named("start_ns")
            .required(PrimitiveTypeName.INT64).named("end_ns")
            .required(PrimitiveTypeName.INT64).named("duration_ns")
            .named("steps");

    private static final String STEP_PREFIX = "ProfilerStep#";

    private TraceTables() {
    }

    private static Types.GroupBuilder<MessageType> run(Types.GroupBuilder<MessageType> b) {
        return b.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("job_id")
                .required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named("run_id")
                .required(PrimitiveTypeName.INT32).named("rank")
                .required(PrimitiveTypeName.INT32).named("world_size");
    }

    /** Writes the four files of {@code trace} into {@code folder}. */
    static void write(Trace trace, RunIdentity run, Path folder) throws IOException {
        Steps steps = Steps.of(trace);
        Map<Long, String> threadNames = new HashMap<>();
        for (TraceThread t : trace.threads()) {
            threadNames.put(t.id(), t.name());
        }
        try (TableWriter events = new TableWriter(folder.resolve(EVENTS), EVENTS_SCHEMA);
                TableWriter kernels = new TableWriter(folder.resolve(KERNELS), KERNELS_SCHEMA);
                TableWriter memory = new TableWriter(folder.resolve(MEMORY), MEMORY_SCHEMA)) {
            EventCursor c = trace.events();
            while (c.next()) {
                EventKind kind = c.kind();
                long start = c.startEpochNanos();
                if (kind.isDeviceWork()) {
                    TableWriter.Row r = withRun(kernels.row(), run);
                    r.set(4, c.eventId()).set(5, kind.category()).set(6, c.name()).set(7, c.deviceType())
                            .set(8, c.deviceIndex()).set(9, c.streamId()).set(10, start)
                            .set(11, start + c.durationNanos()).set(12, c.durationNanos())
                            .setOrNull(13, c.correlationId()).setOrNull(14, c.flowId())
                            .set(15, c.isCommunication()).setOrNull(16, steps.at(start));
                    kernels.write();
                } else if (kind == EventKind.MEMORY || kind == EventKind.OUT_OF_MEMORY) {
                    TableWriter.Row r = withRun(memory.row(), run);
                    String category = c.memoryCategory();
                    r.set(4, c.eventId()).set(5, c.deviceType()).set(6, c.deviceIndex()).set(7, c.threadId())
                            .set(8, start).set(9, c.memoryBytes()).set(10, c.memoryAddress())
                            .set(11, c.memoryTotalAllocated()).set(12, c.memoryTotalReserved())
                            .set(13, category.isEmpty() ? null : category)
                            .set(14, kind == EventKind.OUT_OF_MEMORY).setOrNull(15, c.parentId())
                            .setOrNull(16, steps.at(start));
                    memory.write();
                } else {
                    TableWriter.Row r = withRun(events.row(), run);
                    r.set(4, c.eventId()).setOrNull(5, c.parentId()).set(6, kind.category()).set(7, c.name())
                            .set(8, c.threadId()).set(9, threadNames.get(c.threadId())).set(10, start)
                            .set(11, start + c.durationNanos()).set(12, c.durationNanos())
                            .set(13, c.selfDurationNanos()).set(14, c.deviceSelfNanos())
                            .set(15, c.deviceTotalNanos()).setOrNull(16, steps.at(start))
                            .setOrNull(17, c.correlationId()).setOrNull(18, c.sequenceNumber()).set(19, c.flops());
                    events.write();
                }
            }
        }
        try (TableWriter out = new TableWriter(folder.resolve(STEPS), STEPS_SCHEMA)) {
            for (int i = 0; i < steps.size(); i++) {
                withRun(out.row(), run).set(4, steps.number[i]).set(5, steps.start[i]).set(6, steps.end[i])
                        .set(7, steps.end[i] - steps.start[i]);
                out.write();
            }
        }
    }

    private static TableWriter.Row withRun(TableWriter.Row row, RunIdentity run) {
        return row.set(0, run.jobId()).set(1, run.runId()).set(2, run.rank()).set(3, run.worldSize());
    }

    /** The {@code ProfilerStep#N} spans of a trace, sorted by start, and the step a time falls in. */
    static final class Steps {
        long[] number = new long[8];
        long[] start = new long[8];
        long[] end = new long[8];
        private int size;

        static Steps of(Trace trace) {
            Steps s = new Steps();
            EventCursor c = trace.events();
            while (c.next()) {
                if (c.kind() == EventKind.USER_ANNOTATION && isStep(c.name())) {
                    s.add(Long.parseLong(c.name().substring(STEP_PREFIX.length())), c.startEpochNanos(),
                            c.startEpochNanos() + c.durationNanos());
                }
            }
            s.sort();
            return s;
        }

        static boolean isStep(String name) {
            if (!name.startsWith(STEP_PREFIX) || name.length() == STEP_PREFIX.length()
                    || name.length() > STEP_PREFIX.length() + 18) {
                return false;
            }
            for (int i = STEP_PREFIX.length(); i < name.length(); i++) {
                if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                    return false;
                }
            }
            return true;
        }

        int size() {
            return size;
        }

        private void add(long n, long from, long to) {
            if (size == number.length) {
                number = Arrays.copyOf(number, size * 2);
                start = Arrays.copyOf(start, size * 2);
                end = Arrays.copyOf(end, size * 2);
            }
            number[size] = n;
            start[size] = from;
            end[size] = to;
            size++;
        }

        private void sort() {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(start[a], start[b]));
            long[] n = new long[size];
            long[] s = new long[size];
            long[] e = new long[size];
            for (int i = 0; i < size; i++) {
                n[i] = number[order[i]];
                s[i] = start[order[i]];
                e[i] = end[order[i]];
            }
            number = n;
            start = s;
            end = e;
        }

        /** Returns the step whose span holds {@code time} (start inclusive, end exclusive), or -1. */
        long at(long time) {
            int lo = 0;
            int hi = size - 1;
            int found = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (start[mid] <= time) {
                    found = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return found >= 0 && time < end[found] ? number[found] : -1;
        }
    }
}
