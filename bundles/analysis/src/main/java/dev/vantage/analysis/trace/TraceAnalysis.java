package dev.vantage.analysis.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.TraceStep;

/**
 * Turns what {@link TraceReader} read into a {@link TraceSummary}, in time linear in the number of events (plus a
 * sort of a thread's events only when the file has them out of order). Host events nest by time on their thread
 * (pid and tid), as in the TensorBoard plugin; runtime calls and device time join operators by {@code External id}
 * (an operator's self time excludes its children and its runtime calls, as the profiler's own tree and the csv
 * views count it); device work belongs to a step by the trace model's one rule ({@link StepRule}: the step its
 * launching operator started in), and a step's time runs to the end of its device work when that is later than its
 * span, as every exporter counts it.
 */
final class TraceAnalysis {

    /** A step and the intervals its breakdown needs, as pairs of {@code [from, to)} (relative times). */
    private static final class StepSpan {
        final ParsedTrace.Step step;
        final long end;
        /** Host events on the step's thread, clipped to the step, merged. */
        final LongList host = new LongList();
        /** Runtime calls on the step's thread, clipped to the step, merged. */
        final LongList runtime = new LongList();
        final LongList[] device = {new LongList(), new LongList(), new LongList(), new LongList()};

        StepSpan(ParsedTrace.Step step) {
            this.step = step;
            this.end = step.start() + step.duration();
        }
    }

    private static final class OpSums {
        final String name;
        final String shapes;
        long count;
        long self;
        long total;
        long deviceSelf;
        long deviceTotal;
        final LongList durations = new LongList();

        OpSums(String name, String shapes) {
            this.name = name;
            this.shapes = shapes;
        }

        void add(long duration, long selfNanos, long ownDevice, long allDevice) {
            count++;
            total += duration;
            self += selfNanos;
            deviceSelf += ownDevice;
            deviceTotal += allDevice;
            durations.add(duration);
        }

        OpStats stats(boolean byShape) {
            return new OpStats(name, byShape ? shapes : null, count, self, total, deviceSelf, deviceTotal,
                    total / count, durations.p99());
        }
    }

    private static final class KernelSums {
        final String name;
        final String type;
        final String op;
        long count;
        long total;
        long min = Long.MAX_VALUE;
        long max;
        final LongList durations = new LongList();

        KernelSums(String name, String type, String op) {
            this.name = name;
            this.type = type;
            this.op = op;
        }

        void add(long duration) {
            count++;
            total += duration;
            min = Math.min(min, duration);
            max = Math.max(max, duration);
            durations.add(duration);
        }

        KernelStats stats() {
            return new KernelStats(name, type, op, count, total, min, max, total / count, durations.p99());
        }
    }

    private static final String[] TYPES = {"kernel", "memcpy", "memset", "communication"};

    private final ParsedTrace t;
    private final LongLongMap deviceByExternal = new LongLongMap();
    private final LongLongMap opOfExternal = new LongLongMap();
    /** The start of each operator that launched device work, by External id. */
    private final LongLongMap opStartOfExternal = new LongLongMap();
    private final LongLongMap runtimeByExternal = new LongLongMap();
    private final Map<Integer, OpSums> opsByName = new LinkedHashMap<>();
    private final Map<List<Integer>, OpSums> opsByShape = new LinkedHashMap<>();
    private final List<StepSpan> steps = new ArrayList<>();

    TraceAnalysis(ParsedTrace parsed) {
        this.t = parsed;
    }

    TraceSummary summary(String source) {
        EventColumns d = t.device;
        for (int i = 0; i < d.size; i++) {
            deviceByExternal.add(d.externalId[i], d.duration[i]);
        }
        for (EventColumns c : t.threads.values()) {
            for (int i = 0; i < c.size; i++) {
                if (c.kind[i] == EventColumns.RUNTIME) {
                    runtimeByExternal.add(c.externalId[i], c.duration[i]);
                }
            }
        }
        Map<String, List<StepSpan>> stepsByThread = new HashMap<>();
        for (ParsedTrace.Step s : t.steps) {
            StepSpan span = new StepSpan(s);
            steps.add(span);
            stepsByThread.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(span);
        }
        Comparator<StepSpan> byStart = Comparator.comparingLong(s -> s.step.start());
        steps.sort(byStart);
        stepsByThread.values().forEach(l -> l.sort(byStart));
        for (Map.Entry<String, EventColumns> e : t.threads.entrySet()) {
            host(e.getValue(), stepsByThread.getOrDefault(e.getKey(), List.of()));
        }

        Map<Integer, KernelSums> kernels = new LinkedHashMap<>();
        Map<List<Integer>, KernelSums> kernelsByOp = new LinkedHashMap<>();
        // the trace model's one rule, over the steps in start order (the order of this.steps)
        List<TraceStep> spans = new ArrayList<>();
        for (StepSpan s : steps) {
            spans.add(new TraceStep(s.step.number(), s.step.start(), s.end, s.step.start()));
        }
        StepRule rule = StepRule.of(spans);
        for (int i = 0; i < d.size; i++) {
            String type = TYPES[d.kind[i] - EventColumns.KERNEL];
            String name = t.names.get(d.name[i]);
            kernels.computeIfAbsent(d.name[i], k -> new KernelSums(name, type, null)).add(d.duration[i]);
            int op = (int) opOfExternal.get(d.externalId[i], -1);
            kernelsByOp.computeIfAbsent(List.of(d.name[i], op),
                    k -> new KernelSums(name, type, op < 0 ? "" : t.names.get(op))).add(d.duration[i]);
            long launch = opStartOfExternal.get(d.externalId[i], -1);
            int index = rule.attribute(d.start[i], launch, d.start[i] + d.duration[i]);
            StepSpan step = index < 0 ? null : steps.get(index);
            if (step != null) {
                step.device[d.kind[i] - EventColumns.KERNEL].add(d.start[i]);
                step.device[d.kind[i] - EventColumns.KERNEL].add(d.start[i] + d.duration[i]);
            }
        }

        Comparator<OpStats> opOrder = Comparator.comparingLong(OpStats::totalNanos).reversed()
                .thenComparing(OpStats::name).thenComparing(o -> o.inputShapes() == null ? "" : o.inputShapes());
        Comparator<KernelStats> kernelOrder = Comparator.comparingLong(KernelStats::totalNanos).reversed()
                .thenComparing(KernelStats::name).thenComparing(k -> k.op() == null ? "" : k.op());
        return new TraceSummary(source, t.rank, t.worldSize, t.events,
                opsByName.values().stream().map(o -> o.stats(false)).sorted(opOrder).toList(),
                opsByShape.values().stream().map(o -> o.stats(true)).sorted(opOrder).toList(),
                kernels.values().stream().map(KernelSums::stats).sorted(kernelOrder).toList(),
                kernelsByOp.values().stream().map(KernelSums::stats).sorted(kernelOrder).toList(),
                breakdowns(rule.steps()), memory());
    }

    /** One thread's host events: nesting, self and device times, and the step intervals. */
    private void host(EventColumns c, List<StepSpan> ownSteps) {
        int[] order = c.nestingOrder();
        int[] stack = new int[32];
        long[] childNanos = new long[32];
        long[] ownDevice = new long[32];
        long[] allDevice = new long[32];
        int depth = 0;
        int[] cursor = {0};
        for (int i : order) {
            long start = c.start[i];
            long end = start + c.duration[i];
            while (depth > 0 && end > c.start[stack[depth - 1]] + c.duration[stack[depth - 1]]) {
                depth--;
                close(c, stack[depth], childNanos[depth], ownDevice[depth], allDevice[depth]);
                if (depth > 0) {
                    allDevice[depth - 1] += allDevice[depth];
                }
            }
            byte kind = c.kind[i];
            if (depth == 0) {
                clipToSteps(ownSteps, cursor, start, end, false);
            }
            if (kind == EventColumns.RUNTIME) {
                // a runtime call is not a child by time: as the profiler's own tree (and torch's), it belongs to
                // the op of its External id, even when it ran on another thread (a collective's comm thread)
                clipToSteps(ownSteps, cursor, start, end, true);
                continue;
            }
            if (depth > 0) {
                childNanos[depth - 1] += c.duration[i];
            }
            if (depth == stack.length) {
                stack = Arrays.copyOf(stack, depth * 2);
                childNanos = Arrays.copyOf(childNanos, depth * 2);
                ownDevice = Arrays.copyOf(ownDevice, depth * 2);
                allDevice = Arrays.copyOf(allDevice, depth * 2);
            }
            long own = kind == EventColumns.OP || kind == EventColumns.ANNOTATION
                    ? deviceByExternal.get(c.externalId[i], 0) : 0;
            stack[depth] = i;
            childNanos[depth] = 0;
            ownDevice[depth] = own;
            allDevice[depth] = own;
            depth++;
            if (kind == EventColumns.OP && deviceByExternal.get(c.externalId[i], -1) >= 0) {
                // only operators that launched device work are looked up by kernels: keep the maps that small
                opOfExternal.put(c.externalId[i], c.name[i]);
                opStartOfExternal.put(c.externalId[i], start);
            }
        }
        while (depth > 0) {
            depth--;
            close(c, stack[depth], childNanos[depth], ownDevice[depth], allDevice[depth]);
            if (depth > 0) {
                allDevice[depth - 1] += allDevice[depth];
            }
        }
    }

    private void close(EventColumns c, int i, long childNanos, long ownDevice, long allDevice) {
        if (c.kind[i] != EventColumns.OP) {
            return;
        }
        long duration = c.duration[i];
        long self = Math.max(0, duration - childNanos - runtimeByExternal.get(c.externalId[i], 0));
        String name = t.names.get(c.name[i]);
        opsByName.computeIfAbsent(c.name[i], k -> new OpSums(name, null)).add(duration, self, ownDevice, allDevice);
        opsByShape.computeIfAbsent(List.of(c.name[i], c.detail[i]), k -> new OpSums(name, t.shapes.get(c.detail[i])))
                .add(duration, self, ownDevice, allDevice);
    }

    /** Adds a host interval to the steps of its thread it overlaps, clipped; intervals come by ascending start. */
    private static void clipToSteps(List<StepSpan> ownSteps, int[] cursor, long start, long end, boolean runtime) {
        while (cursor[0] < ownSteps.size() && ownSteps.get(cursor[0]).end <= start) {
            cursor[0]++;
        }
        for (int j = cursor[0]; j < ownSteps.size() && ownSteps.get(j).step.start() < end; j++) {
            StepSpan s = ownSteps.get(j);
            long from = Math.max(start, s.step.start());
            long to = Math.min(end, s.end);
            if (from < to) {
                (runtime ? s.runtime : s.host).appendInterval(from, to);
            }
        }
    }

    private List<StepStats> breakdowns(List<TraceStep> timed) {
        List<StepStats> out = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            out.add(breakdown(steps.get(i), timed.get(i)));
        }
        return out;
    }

    private StepStats breakdown(StepSpan s, TraceStep timed) {
        LongList[] dev = s.device;
        long kernel = Intervals.union(dev[0]);
        long withMemcpy = Intervals.union(dev[0], dev[1]);
        long compute = Intervals.union(dev[0], dev[1], dev[2]);
        long busy = Intervals.union(dev[0], dev[1], dev[2], dev[3]);
        long withRuntime = Intervals.union(dev[0], dev[1], dev[2], dev[3], s.runtime);
        long withHost = Intervals.union(dev[0], dev[1], dev[2], dev[3], s.runtime, s.host);
        long duration = timed.durationNanos();
        return new StepStats(s.step.number(), t.baseNanos + s.step.start(), duration, kernel, withMemcpy - kernel,
                compute - withMemcpy, busy - compute, withRuntime - busy, withHost - withRuntime,
                Math.max(0, duration - withHost));
    }

    private List<MemoryCurve> memory() {
        List<MemoryCurve> curves = new ArrayList<>();
        for (Map.Entry<List<Integer>, ParsedTrace.Memory> e : t.memory.entrySet()) {
            ParsedTrace.Memory m = e.getValue();
            int n = m.time.size();
            long peakAllocated = 0;
            long peakReserved = 0;
            for (int i = 0; i < n; i++) {
                peakAllocated = Math.max(peakAllocated, m.allocated.get(i));
                peakReserved = Math.max(peakReserved, m.reserved.get(i));
            }
            int slices = Math.min(n, TraceReader.MAX_CURVE_POINTS);
            List<MemoryCurve.Point> points = new ArrayList<>(slices);
            for (int k = 0; k < slices; k++) {
                int from = (int) ((long) k * n / slices);
                int to = (int) ((long) (k + 1) * n / slices);
                int best = from;
                for (int i = from + 1; i < to; i++) {
                    if (m.allocated.get(i) > m.allocated.get(best)) {
                        best = i;
                    }
                }
                points.add(new MemoryCurve.Point(t.baseNanos + m.time.get(best), m.allocated.get(best),
                        m.reserved.get(best)));
            }
            curves.add(new MemoryCurve(deviceName(e.getKey().get(0), e.getKey().get(1)), n, peakAllocated,
                    peakReserved, points));
        }
        curves.sort(Comparator.comparing(MemoryCurve::device));
        return curves;
    }

    /**
     * The csv views' device name from c10's {@code DeviceType} number: 0 {@code CPU}, 1 {@code CUDA:i},
     * 13 {@code MPS:i}, 20 (PrivateUse1) the accelerator type {@code deviceProperties} names ({@code NPU:i}).
     */
    private String deviceName(int type, int index) {
        String name = switch (type) {
            case 0 -> null;
            case 1 -> "CUDA";
            case 13 -> "MPS";
            case 20 -> t.deviceTypes.stream().filter(d -> !d.equals("cpu") && !d.equals("mps") && !d.equals("cuda"))
                    .findFirst().orElse("PrivateUse1").toUpperCase(Locale.ROOT);
            default -> "DEVICE" + type;
        };
        return name == null ? "CPU" : name + ":" + index;
    }
}
