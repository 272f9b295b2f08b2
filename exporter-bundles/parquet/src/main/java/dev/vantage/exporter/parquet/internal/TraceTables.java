package dev.vantage.exporter.parquet.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.profiler.trace.TraceThread;

/**
 * The four tables of a trace and the pass that fills them. Every table starts with {@code job_id}, {@code run_id},
 * {@code rank}, {@code world_size}; times are {@code INT64} nanoseconds since the Unix epoch ({@code _ns}), so that
 * the same SQL computes with them on every engine. The column order here is the schema's; docs/parquet-schema.md documents it
 * and {@code ParquetTraceExporterTest} holds the two to each other.
 *
 * <p>Every row's {@code step} is the trace model's one rule ({@link StepRule}): host rows by the step whose span holds
 * their start, device work by the step its launching op started in. The steps come from {@link Trace#steps()}, then
 * one pass streams the events into the files. Memory is the steps and the writers' row groups.
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
            .optional(PrimitiveTypeName.INT64).named("flow_id")
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
            .optional(PrimitiveTypeName.INT64).named("bytes")
            .optional(PrimitiveTypeName.DOUBLE).named("memory_bandwidth_gbps")
            .optional(PrimitiveTypeName.DOUBLE).named("blocks_per_sm")
            .optional(PrimitiveTypeName.DOUBLE).named("est_achieved_occupancy_pct")
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

    // steps: one row per step (Trace.steps()); end_ns and duration_ns are the step's time, to the later of the
    // ProfilerStep#N span's end (span_end_ns) and the end of the device work attributed to it
    static final MessageType STEPS_SCHEMA = run(Types.buildMessage())
            .required(PrimitiveTypeName.INT64).named("step")
            .required(PrimitiveTypeName.INT64).named("start_ns")
            .required(PrimitiveTypeName.INT64).named("end_ns")
            .required(PrimitiveTypeName.INT64).named("duration_ns")
            .required(PrimitiveTypeName.INT64).named("span_end_ns")
            .named("steps");

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
        // the steps and which one a row belongs to: the trace model's one rule
        List<TraceStep> steps = trace.steps();
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
                            .set(15, c.isCommunication()).setOrNull(16, step(steps, c));
                    Map<String, String> facts = c.args();
                    r.setOrNull(17, (long) number(facts.get("bytes"), -1))
                            .setOrNull(18, number(facts.get("memory bandwidth (GB/s)"), Double.NaN))
                            .setOrNull(19, number(facts.get("blocks per SM"), Double.NaN))
                            .setOrNull(20, number(facts.get("est. achieved occupancy %"), Double.NaN));
                    kernels.write();
                } else if (kind == EventKind.MEMORY || kind == EventKind.OUT_OF_MEMORY) {
                    TableWriter.Row r = withRun(memory.row(), run);
                    String category = c.memoryCategory();
                    r.set(4, c.eventId()).set(5, c.deviceType()).set(6, c.deviceIndex()).set(7, c.threadId())
                            .set(8, start).set(9, c.memoryBytes()).set(10, c.memoryAddress())
                            .set(11, c.memoryTotalAllocated()).set(12, c.memoryTotalReserved())
                            .set(13, category.isEmpty() ? null : category)
                            .set(14, kind == EventKind.OUT_OF_MEMORY).setOrNull(15, c.parentId())
                            .setOrNull(16, step(steps, c));
                    memory.write();
                } else {
                    TableWriter.Row r = withRun(events.row(), run);
                    r.set(4, c.eventId()).setOrNull(5, c.parentId()).set(6, kind.category()).set(7, c.name())
                            .set(8, c.threadId()).set(9, threadNames.get(c.threadId())).set(10, start)
                            .set(11, start + c.durationNanos()).set(12, c.durationNanos())
                            .set(13, c.selfDurationNanos()).set(14, c.deviceSelfNanos())
                            .set(15, c.deviceTotalNanos()).setOrNull(16, step(steps, c))
                            .setOrNull(17, c.correlationId()).setOrNull(18, c.sequenceNumber()).set(19, c.flops())
                            .setOrNull(20, c.flowId());
                    events.write();
                }
            }
        }
        try (TableWriter out = new TableWriter(folder.resolve(STEPS), STEPS_SCHEMA)) {
            for (TraceStep s : steps) {
                withRun(out.row(), run).set(4, s.number()).set(5, s.startEpochNanos()).set(6, s.timeEndEpochNanos())
                        .set(7, s.durationNanos()).set(8, s.endEpochNanos());
                out.write();
            }
        }
    }

    /** A device's fact read as a number (Kineto writes them as JSON numbers or text), or {@code none}. */
    private static double number(String text, double none) {
        if (text == null) {
            return none;
        }
        try {
            double d = Double.parseDouble(text.strip());
            return Double.isFinite(d) ? d : none;
        } catch (NumberFormatException e) {
            return none;
        }
    }

    /**
     * The number of the step an event belongs to, as the trace says ({@link EventCursor#stepIndex()}), or -1 (written
     * as null).
     */
    private static long step(List<TraceStep> steps, EventCursor c) {
        int index = c.stepIndex();
        return index < 0 ? -1 : steps.get(index).number();
    }

    private static TableWriter.Row withRun(TableWriter.Row row, RunIdentity run) {
        return row.set(0, run.jobId()).set(1, run.runId()).set(2, run.rank()).set(3, run.worldSize());
    }
}
