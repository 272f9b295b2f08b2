package dev.vantage.exporter.csv.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceStep;

/**
 * The torch_npu views of a trace, with torch_npu's exact headers (reference: Ascend/pytorch {@code prof_view}).
 * Two passes over the trace's cursor, host events then device work, keep memory bounded by the number of distinct
 * operators, kernels per step and live allocations, never by the number of events.
 *
 * <ul>
 *   <li>{@code kernel_details.csv}: one row per kernel, copy or fill. {@code Type}, {@code Accelerator Core}
 *       and {@code Block Num} come from the device's own facts about the work (its args of those names, which
 *       the NPU bundle fills); without them {@code Type} is the kernel name and the other two are empty.
 *       {@code Wait Time(us)} is the gap since the previous work on the same stream. CPU-only traces have the
 *       header only.</li>
 *   <li>{@code operator_details.csv}: host ops grouped by name, input shapes and call stack, with host and device
 *       self and total times; the AI Core columns are empty.</li>
 *   <li>{@code op_statistic.csv}: device work grouped by name; {@code Core Type} is the work's
 *       {@code Accelerator Core}, or empty.</li>
 *   <li>{@code step_trace_time.csv}: one row per step ({@link Trace#steps()}), over the step's time (its span, or
 *       to the end of the device work attributed to it when later, as {@link StepRule} attributes work to
 *       steps; {@code Step Id} of {@code kernel_details.csv} follows the same rule). {@code Computing} is the union
 *       of the step's device work, or for a CPU-only trace the time of the step's top-level host ops, with
 *       {@code Device_id} {@code cpu}; {@code Free} is the rest of the step, so that {@code Computing},
 *       {@code Communication(Not Overlapped)} and {@code Free} add up to the step's time; {@code Preparing} the time before
 *       the first work; the communication columns come from communication kernels ({@code hcom_*}, NCCL's, or
 *       any with a {@code Collective name}) and how much of them overlaps compute; stage and bubble are 0.</li>
 *   <li>{@code memory_record.csv} and {@code operator_memory.csv}, when memory was profiled: every allocator event,
 *       and every allocation paired with its free by address, named after the op that allocated.
 *       {@code Component} is {@code PTA}, torch_npu's name for the framework allocator; active figures equal
 *       allocated ones.</li>
 * </ul>
 * Times are microseconds with three decimals; sizes are MB and KB (1024-based) with three decimals.
 */
final class CsvViews {

    static final List<String> KERNEL_DETAILS = List.of("Step Id", "Device_id", "Name", "Type", "Accelerator Core",
            "Start Time(us)", "Duration(us)", "Wait Time(us)", "Block Num");
    static final List<String> OPERATOR_DETAILS = List.of("Name", "Input Shapes", "Call Stack",
            "Host Self Duration(us)", "Host Total Duration(us)", "Device Self Duration(us)",
            "Device Total Duration(us)", "Device Self Duration With AICore(us)",
            "Device Total Duration With AICore(us)");
    static final List<String> OP_STATISTIC = List.of("OP Type", "Core Type", "Count", "Total Time(us)",
            "Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)");
    static final List<String> STEP_TRACE_TIME = List.of("Device_id", "Step", "Computing",
            "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage", "Bubble",
            "Communication(Not Overlapped and Exclude Receive)", "Preparing");
    static final List<String> MEMORY_RECORD = List.of("Component", "Timestamp(us)", "Total Allocated(MB)",
            "Total Reserved(MB)", "Total Active(MB)", "Stream Ptr", "Device Type");
    static final List<String> OPERATOR_MEMORY = List.of("Name", "Size(KB)", "Allocation Time(us)",
            "Release Time(us)", "Active Release Time(us)", "Duration(us)", "Active Duration(us)",
            "Allocation Total Allocated(MB)", "Allocation Total Reserved(MB)", "Allocation Total Active(MB)",
            "Release Total Allocated(MB)", "Release Total Reserved(MB)", "Release Total Active(MB)",
            "Stream Ptr", "Device Type");

    private CsvViews() {
    }

    /** A step ({@link TraceStep}) and what the views sum inside it. */
    private static final class Step {
        final long number;
        final long start;
        /** The end of the step's time: its span, or the end of the device work attributed to it if later. */
        final long end;
        long hostBusy;
        long firstWork = Long.MAX_VALUE;
        final List<long[]> deviceWork = new ArrayList<>();
        /** Communication kernels: HCCL's {@code hcom_*}, NCCL's, or any carrying a {@code Collective name}. */
        final List<long[]> commWork = new ArrayList<>();
        String deviceId;

        Step(TraceStep step) {
            this.number = step.number();
            this.start = step.startEpochNanos();
            this.end = step.timeEndEpochNanos();
        }
    }

    /** Sums of one operator group. */
    private static final class Op {
        long self;
        long total;
        long deviceSelf;
        long deviceTotal;
    }

    /** Sums of one kind of device work. */
    private static final class Kernel {
        long count;
        long total;
        long min = Long.MAX_VALUE;
        long max;
        String core = "";
    }

    /** An allocation waiting for its free. */
    private record Allocation(String name, long bytes, long time, long allocated, long reserved, String device) {
    }

    static void write(Trace trace, Path dir) throws IOException {
        boolean memory = "1".equals(trace.metadata().get("profile_memory"));
        // the steps and which one an event belongs to: the trace model's one rule
        List<TraceStep> traceSteps = trace.steps();
        List<Step> steps = new ArrayList<>();
        traceSteps.forEach(t -> steps.add(new Step(t)));
        Map<Long, Step> stepsById = new HashMap<>();
        Map<List<String>, Op> ops = new LinkedHashMap<>();
        Map<Long, Deque<long[]>> open = new HashMap<>();
        Map<Long, String> openNames = new HashMap<>();
        Map<String, Allocation> live = new LinkedHashMap<>();

        CsvTable memoryRecord = memory ? new CsvTable(dir.resolve("memory_record.csv"), MEMORY_RECORD) : null;
        CsvTable operatorMemory = memory ? new CsvTable(dir.resolve("operator_memory.csv"), OPERATOR_MEMORY) : null;
        try {
            EventCursor c = trace.events();
            while (c.next()) {
                EventKind kind = c.kind();
                if (kind.isDeviceWork()) {
                    continue;
                }
                long start = c.startEpochNanos();
                if (c.isStep()) {
                    // the step's span: its top-level ops are what a CPU-only step computes
                    int index = c.stepIndex();
                    if (index >= 0) {
                        stepsById.put(c.eventId(), steps.get(index));
                    }
                    continue;
                }
                Step step = stepsById.get(c.parentId());
                if (step != null && kind != EventKind.MEMORY && kind != EventKind.OUT_OF_MEMORY) {
                    step.hostBusy += c.durationNanos();
                    step.firstWork = Math.min(step.firstWork, start);
                }
                if (kind == EventKind.CPU_OP || kind == EventKind.USER_ANNOTATION) {
                    // the ops open on this thread, so that an allocation can be named after its op
                    Deque<long[]> stack = open.computeIfAbsent(c.threadId(), t -> new ArrayDeque<>());
                    while (!stack.isEmpty() && stack.peek()[1] <= start) {
                        openNames.remove(stack.pop()[0]);
                    }
                    stack.push(new long[] {c.eventId(), start + c.durationNanos()});
                    openNames.put(c.eventId(), c.name());
                }
                if (kind == EventKind.CPU_OP) {
                    Op op = ops.computeIfAbsent(List.of(c.name(), shapes(c), String.join(";", c.stack())),
                            k -> new Op());
                    op.self += c.selfDurationNanos();
                    op.total += c.durationNanos();
                    op.deviceSelf += c.deviceSelfNanos();
                    op.deviceTotal += c.deviceTotalNanos();
                }
                if (kind == EventKind.MEMORY && memory) {
                    memoryEvent(c, openNames.getOrDefault(c.parentId(), ""), live, memoryRecord, operatorMemory);
                }
            }
            if (memory) {
                for (Allocation a : live.values()) {
                    operatorMemory.row(a.name(), CsvTable.kilobytes(a.bytes()), CsvTable.micros(a.time()), "", "",
                            "", "", CsvTable.megabytes(a.allocated()), CsvTable.megabytes(a.reserved()),
                            CsvTable.megabytes(a.allocated()), "", "", "", "", a.device());
                }
            }
        } finally {
            if (memoryRecord != null) {
                memoryRecord.close();
                operatorMemory.close();
            }
        }

        Map<String, Kernel> kernels = new LinkedHashMap<>();
        long deviceTotal = 0;
        try (CsvTable details = new CsvTable(dir.resolve("kernel_details.csv"), KERNEL_DETAILS)) {
            Map<String, Long> streamEnd = new HashMap<>();
            EventCursor c = trace.events();
            while (c.next()) {
                if (!c.kind().isDeviceWork()) {
                    continue;
                }
                long start = c.startEpochNanos();
                long duration = c.durationNanos();
                String stream = c.deviceType() + ":" + c.deviceIndex() + ":" + c.streamId();
                Long previous = streamEnd.put(stream, start + duration);
                long wait = previous == null ? 0 : Math.max(0, start - previous);
                int index = c.stepIndex();
                Step step = index < 0 ? null : steps.get(index);
                if (step != null) {
                    (c.isCommunication() ? step.commWork : step.deviceWork).add(new long[] {start, start + duration});
                    step.firstWork = Math.min(step.firstWork, start);
                    step.deviceId = Integer.toString(c.deviceIndex());
                }
                Map<String, String> args = c.args();
                String core = args.getOrDefault("Accelerator Core", "");
                details.row(step == null ? "" : Long.toString(step.number), Integer.toString(c.deviceIndex()),
                        c.name(), args.getOrDefault("Type", c.name()), core, CsvTable.micros(start),
                        CsvTable.micros(duration), CsvTable.micros(wait), args.getOrDefault("Block Num", ""));
                Kernel k = kernels.computeIfAbsent(c.name(), n -> new Kernel());
                k.core = core;
                k.count++;
                k.total += duration;
                k.min = Math.min(k.min, duration);
                k.max = Math.max(k.max, duration);
                deviceTotal += duration;
            }
        }

        try (CsvTable details = new CsvTable(dir.resolve("operator_details.csv"), OPERATOR_DETAILS)) {
            for (Map.Entry<List<String>, Op> e : ops.entrySet()) {
                Op op = e.getValue();
                details.row(e.getKey().get(0), e.getKey().get(1), e.getKey().get(2), CsvTable.micros(op.self),
                        CsvTable.micros(op.total), CsvTable.micros(op.deviceSelf), CsvTable.micros(op.deviceTotal),
                        "", "");
            }
        }

        try (CsvTable statistic = new CsvTable(dir.resolve("op_statistic.csv"), OP_STATISTIC)) {
            List<Map.Entry<String, Kernel>> sorted = new ArrayList<>(kernels.entrySet());
            sorted.sort((a, b) -> Long.compare(b.getValue().total, a.getValue().total));
            for (Map.Entry<String, Kernel> e : sorted) {
                Kernel k = e.getValue();
                statistic.row(e.getKey(), k.core, Long.toString(k.count), CsvTable.micros(k.total),
                        CsvTable.micros(k.min), CsvTable.micros(k.total / k.count), CsvTable.micros(k.max),
                        String.format(java.util.Locale.ROOT, "%.2f", k.total * 100.0 / deviceTotal));
            }
        }

        try (CsvTable stepTime = new CsvTable(dir.resolve("step_trace_time.csv"), STEP_TRACE_TIME)) {
            if (steps.isEmpty()) {
                Step whole = new Step(new TraceStep(-1, trace.startEpochNanos(), trace.endEpochNanos(),
                        trace.startEpochNanos()));
                stepRow(stepTime, whole, "");
            }
            for (Step s : steps) {
                stepRow(stepTime, s, Long.toString(s.number));
            }
        }
    }

    /**
     * One row, as torch_npu's: {@code Computing} the union of compute work (or the host's busy time in a CPU-only
     * trace), {@code Communication} the union of communication work, {@code Overlapped} the part of it during
     * compute, {@code Communication(Not Overlapped)} the rest, {@code Free} the step's time with neither; no stage
     * or bubble (no pipeline stages), and no receive to exclude.
     */
    private static void stepRow(CsvTable table, Step s, String number) throws IOException {
        long duration = s.end - s.start;
        boolean device = !s.deviceWork.isEmpty() || !s.commWork.isEmpty();
        long computing = device ? union(new ArrayList<>(s.deviceWork)) : s.hostBusy;
        long communication = s.commWork.isEmpty() ? 0 : union(new ArrayList<>(s.commWork));
        List<long[]> all = new ArrayList<>(s.deviceWork);
        all.addAll(s.commWork);
        long busy = device ? (all.isEmpty() ? 0 : union(all)) : computing;
        long overlapped = computing + communication - busy;
        long notOverlapped = communication - overlapped;
        long preparing = s.firstWork == Long.MAX_VALUE ? 0 : Math.max(0, s.firstWork - s.start);
        String zero = CsvTable.micros(0);
        table.row(s.deviceId == null ? "cpu" : s.deviceId, number, CsvTable.micros(computing),
                CsvTable.micros(notOverlapped), CsvTable.micros(overlapped), CsvTable.micros(communication),
                CsvTable.micros(Math.max(0, duration - busy)), zero, zero, CsvTable.micros(notOverlapped),
                CsvTable.micros(preparing));
    }

    /** Returns the length of the union of intervals. */
    static long union(List<long[]> intervals) {
        intervals.sort((a, b) -> Long.compare(a[0], b[0]));
        long total = 0;
        long from = Long.MIN_VALUE;
        long to = Long.MIN_VALUE;
        for (long[] i : intervals) {
            if (i[0] > to) {
                total += to - from;
                from = i[0];
                to = i[1];
            } else {
                to = Math.max(to, i[1]);
            }
        }
        return total + (to - from);
    }

    /** torch_npu's shape notation: dims joined by commas, inputs by semicolons ({@code 8,16;16}). */
    static String shapes(EventCursor c) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < c.inputCount(); i++) {
            if (i > 0) {
                sb.append(';');
            }
            long[] shape = c.inputShape(i);
            for (int d = 0; d < shape.length; d++) {
                sb.append(d == 0 ? "" : ",").append(shape[d]);
            }
        }
        return sb.toString();
    }

    private static void memoryEvent(EventCursor c, String op, Map<String, Allocation> live, CsvTable record,
            CsvTable operatorMemory) throws IOException {
        String device = c.deviceType().equals("cpu") ? "CPU"
                : c.deviceType().toUpperCase(java.util.Locale.ROOT) + ":" + c.deviceIndex();
        long time = c.startEpochNanos();
        record.row("PTA", CsvTable.micros(time), CsvTable.megabytes(c.memoryTotalAllocated()),
                CsvTable.megabytes(c.memoryTotalReserved()), CsvTable.megabytes(c.memoryTotalAllocated()), "",
                device);
        String key = device + "@" + c.memoryAddress();
        if (c.memoryBytes() > 0) {
            live.put(key, new Allocation(op, c.memoryBytes(), time, c.memoryTotalAllocated(),
                    c.memoryTotalReserved(), device));
            return;
        }
        Allocation a = live.remove(key);
        if (a != null) {
            String duration = CsvTable.micros(time - a.time());
            operatorMemory.row(a.name(), CsvTable.kilobytes(a.bytes()), CsvTable.micros(a.time()),
                    CsvTable.micros(time), CsvTable.micros(time), duration, duration,
                    CsvTable.megabytes(a.allocated()), CsvTable.megabytes(a.reserved()),
                    CsvTable.megabytes(a.allocated()), CsvTable.megabytes(c.memoryTotalAllocated()),
                    CsvTable.megabytes(c.memoryTotalReserved()), CsvTable.megabytes(c.memoryTotalAllocated()), "",
                    device);
        }
    }
}
