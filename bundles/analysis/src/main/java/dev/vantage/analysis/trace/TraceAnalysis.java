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
 * Turns what a reader filled ({@link TraceColumns}) into a {@link TraceSummary}, in time linear in the number of
 * events (plus a sort of a thread's events only when the file has them out of order). Host events nest by time on
 * their thread (pid and tid), as in the TensorBoard plugin; runtime calls and device work join the operator that
 * launched them by {@link Linkage} (an operator's self time excludes its children and its runtime calls, as the
 * profiler's own tree and the csv views count it); device work belongs to a step by the trace model's one rule
 * ({@link StepRule}: the step its launching operator started in), and a step's time runs to the end of its device
 * work when that is later than its span, as every exporter counts it.
 */
final class TraceAnalysis {

    /** A step and the intervals its breakdown needs, as pairs of {@code [from, to)} (relative times). */
    private static final class StepSpan {
        final TraceColumns.Step step;
        final long end;
        /** Host events on the step's thread, clipped to the step, merged. */
        final LongList host = new LongList();
        /** Runtime calls on the step's thread, clipped to the step, merged. */
        final LongList runtime = new LongList();
        final LongList[] device = {new LongList(), new LongList(), new LongList(), new LongList()};

        StepSpan(TraceColumns.Step step) {
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

    /** What convert needs of every host event beyond the columns: nesting, self and device times. */
    static final class HostDetails {
        /** Per thread and row: the enclosing host event's row on the same thread, or -1. */
        final int[][] parent;
        final long[][] self;
        final long[][] deviceSelf;
        final long[][] deviceTotal;

        HostDetails(TraceColumns t) {
            int n = t.threads.size();
            parent = new int[n][];
            self = new long[n][];
            deviceSelf = new long[n][];
            deviceTotal = new long[n][];
            for (int i = 0; i < n; i++) {
                int size = t.threads.get(i).size;
                parent[i] = new int[size];
                Arrays.fill(parent[i], -1);
                self[i] = new long[size];
                deviceSelf[i] = new long[size];
                deviceTotal[i] = new long[size];
            }
        }
    }

    private static final String[] TYPES = {"kernel", "memcpy", "memset", "communication"};

    private final TraceColumns t;
    private final Linkage link;
    private final HostDetails details;
    private final LongLongMap deviceByOp = new LongLongMap();
    private final LongLongMap runtimeByOp = new LongLongMap();
    private final Map<Integer, OpSums> opsByName = new LinkedHashMap<>();
    private final Map<List<Integer>, OpSums> opsByShape = new LinkedHashMap<>();
    private final List<StepSpan> steps = new ArrayList<>();
    private StepRule rule;

    /**
     * @param withDetails whether to keep every host event's parent, self and device times ({@link #details()})
     */
    TraceAnalysis(TraceColumns parsed, boolean withDetails) {
        this.t = parsed;
        this.link = new Linkage(parsed);
        this.details = withDetails ? new HostDetails(parsed) : null;
    }

    TraceAnalysis(TraceColumns parsed) {
        this(parsed, false);
    }

    Linkage linkage() {
        return link;
    }

    HostDetails details() {
        return details;
    }

    /** The steps with their device work, once {@link #summary} ran. */
    List<TraceStep> traceSteps() {
        return rule.steps();
    }

    /** The start of the operator that launched device work, relative, or -1. */
    long launchStart(int deviceRow) {
        long op = link.opOfDevice[deviceRow];
        return op == Linkage.NONE ? -1 : t.threads.get(Linkage.thread(op)).start[Linkage.row(op)];
    }

    TraceSummary summary(String source) {
        EventColumns d = t.device;
        for (int i = 0; i < d.size; i++) {
            deviceByOp.add(link.opOfDevice[i], d.duration[i]);
        }
        for (int th = 0; th < t.threads.size(); th++) {
            EventColumns c = t.threads.get(th);
            for (int i = 0; i < c.size; i++) {
                if (c.kind[i] == EventColumns.RUNTIME) {
                    runtimeByOp.add(link.opOfRuntime.get(Linkage.id(th, i), Linkage.NONE), c.duration[i]);
                }
            }
        }
        List<TraceColumns.Step> spanList = new ArrayList<>(t.steps);
        if (spanList.isEmpty() && t.iterations.size() > 1) {
            // no ProfilerStep#N: Kineto's own iterations ("Trace iteration"), each from its first host event to its
            // last
            for (Map.Entry<Long, long[]> e : t.iterations.entrySet()) {
                long[] s = e.getValue();
                spanList.add(new TraceColumns.Step(e.getKey(), s[0], s[1] - s[0], -1));
            }
        }
        Map<Integer, List<StepSpan>> stepsByThread = new HashMap<>();
        for (TraceColumns.Step s : spanList) {
            StepSpan span = new StepSpan(s);
            steps.add(span);
            stepsByThread.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(span);
        }
        Comparator<StepSpan> byStart = Comparator.comparingLong(s -> s.step.start());
        steps.sort(byStart);
        stepsByThread.values().forEach(l -> l.sort(byStart));
        for (int th = 0; th < t.threads.size(); th++) {
            host(th, stepsByThread.getOrDefault(th, List.of()));
        }

        Map<Integer, KernelSums> kernels = new LinkedHashMap<>();
        Map<List<Integer>, KernelSums> kernelsByOp = new LinkedHashMap<>();
        // the trace model's one rule, over the steps in start order (the order of this.steps)
        List<TraceStep> spans = new ArrayList<>();
        for (StepSpan s : steps) {
            spans.add(new TraceStep(s.step.number(), s.step.start(), s.end, s.step.start()));
        }
        rule = StepRule.of(spans);
        int[] stepOfDevice = new int[d.size];
        for (int i = 0; i < d.size; i++) {
            String type = TYPES[d.kind[i] - EventColumns.KERNEL];
            String name = t.names.get(d.name[i]);
            kernels.computeIfAbsent(d.name[i], k -> new KernelSums(name, type, null)).add(d.duration[i]);
            long op = link.opOfDevice[i];
            int opName = op == Linkage.NONE ? -1 : t.threads.get(Linkage.thread(op)).name[Linkage.row(op)];
            kernelsByOp.computeIfAbsent(List.of(d.name[i], opName),
                    k -> new KernelSums(name, type, opName < 0 ? "" : t.names.get(opName))).add(d.duration[i]);
            int index = rule.attribute(d.start[i], launchStart(i), d.start[i] + d.duration[i]);
            stepOfDevice[i] = index;
            StepSpan step = index < 0 ? null : steps.get(index);
            if (step != null) {
                step.device[d.kind[i] - EventColumns.KERNEL].add(d.start[i]);
                step.device[d.kind[i] - EventColumns.KERNEL].add(d.start[i] + d.duration[i]);
            }
        }
        List<TraceStep> timed = rule.steps();

        Comparator<OpStats> opOrder = Comparator.comparingLong(OpStats::totalNanos).reversed()
                .thenComparing(OpStats::name).thenComparing(o -> o.inputShapes() == null ? "" : o.inputShapes());
        Comparator<KernelStats> kernelOrder = Comparator.comparingLong(KernelStats::totalNanos).reversed()
                .thenComparing(KernelStats::name).thenComparing(k -> k.op() == null ? "" : k.op());
        return new TraceSummary(source, t.rank, t.worldSize, t.events,
                opsByName.values().stream().map(o -> o.stats(false)).sorted(opOrder).toList(),
                opsByShape.values().stream().map(o -> o.stats(true)).sorted(opOrder).toList(),
                kernels.values().stream().map(KernelSums::stats).sorted(kernelOrder).toList(),
                kernelsByOp.values().stream().map(KernelSums::stats).sorted(kernelOrder).toList(),
                breakdowns(timed), memory(), t.format, t.categoryCounts, t.unknownEvents, kernelLaunches(),
                collectives(), overlap(timed, stepOfDevice));
    }

    /** One thread's host events: nesting, self and device times, and the step intervals. */
    private void host(int th, List<StepSpan> ownSteps) {
        EventColumns c = t.threads.get(th);
        int[] order = link.order[th];
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
                close(th, c, stack[depth], childNanos[depth], ownDevice[depth], allDevice[depth]);
                if (depth > 0) {
                    allDevice[depth - 1] += allDevice[depth];
                }
            }
            byte kind = c.kind[i];
            if (kind != EventColumns.STEP && (depth == 0 || depth == 1 && c.kind[stack[0]] == EventColumns.STEP)) {
                clipToSteps(ownSteps, cursor, start, end, false);
            }
            if (details != null && depth > 0) {
                details.parent[th][i] = stack[depth - 1];
            }
            if (kind == EventColumns.RUNTIME || kind == EventColumns.DRIVER) {
                // a runtime call is not a child by time: as the profiler's own tree (and torch's), it belongs to
                // the op that launched it (Linkage), even when it ran on another thread (a collective's comm thread)
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
            long own = kind == EventColumns.OP ? deviceByOp.get(Linkage.id(th, i), 0) : 0;
            stack[depth] = i;
            childNanos[depth] = 0;
            ownDevice[depth] = own;
            allDevice[depth] = own;
            depth++;
        }
        while (depth > 0) {
            depth--;
            close(th, c, stack[depth], childNanos[depth], ownDevice[depth], allDevice[depth]);
            if (depth > 0) {
                allDevice[depth - 1] += allDevice[depth];
            }
        }
    }

    private void close(int th, EventColumns c, int i, long childNanos, long ownDevice, long allDevice) {
        long duration = c.duration[i];
        long self = Math.max(0, duration - childNanos - runtimeByOp.get(Linkage.id(th, i), 0));
        if (details != null) {
            details.self[th][i] = self;
            details.deviceSelf[th][i] = ownDevice;
            details.deviceTotal[th][i] = allDevice;
        }
        if (c.kind[i] != EventColumns.OP) {
            return;
        }
        String name = t.names.get(c.name[i]);
        opsByName.computeIfAbsent(c.name[i], k -> new OpSums(name, null)).add(duration, self, ownDevice, allDevice);
        opsByShape.computeIfAbsent(List.of(c.name[i], c.detail[i]), k -> new OpSums(name, t.shapes.get(c.detail[i]))).add(duration, self, ownDevice, allDevice);
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

    private List<KernelLaunchStats> kernelLaunches() {
        List<KernelLaunchStats> out = new ArrayList<>();
        for (TraceColumns.KernelLaunches k : t.kernelLaunches.values()) {
            String name = t.names.get(k.name);
            out.add(new KernelLaunchStats(name, k.geometry, k.count, k.nanos,
                    k.occupancyWeight > 0 ? (Double) (k.occupancyNanos / k.occupancyWeight) : null,
                    k.smWeight > 0 ? (Double) (k.blocksPerSmNanos / k.smWeight) : null,
                    k.smWeight > 0 ? (Double) (k.warpsPerSmNanos / k.smWeight) : null, TensorCores.uses(name)));
        }
        out.sort(Comparator.comparingLong(KernelLaunchStats::totalNanos).reversed()
                .thenComparing(KernelLaunchStats::name).thenComparing(KernelLaunchStats::geometry));
        return out;
    }

    private List<CollectiveStats> collectives() {
        Map<String, long[]> byName = new LinkedHashMap<>();
        EventColumns d = t.device;
        for (int k = 0; k < t.commRows.size(); k++) {
            int row = t.commRows.get(k);
            long bytes = t.commBytes.get(k);
            String name = t.commNames.get(k) >= 0 ? t.names.get(t.commNames.get(k)) : null;
            long op = link.opOfDevice[row];
            if (op != Linkage.NONE) {
                EventColumns c = t.threads.get(Linkage.thread(op));
                String opName = t.names.get(c.name[Linkage.row(op)]);
                if (name == null && KinetoJsonReader.isCollective(opName) && !opName.equals("record_param_comms")) {
                    name = opName;
                }
                if (bytes < 0) {
                    bytes = t.hostCommBytes.get(op, -1);
                }
            }
            if (name == null) {
                name = collectiveOfKernel(t.names.get(d.name[row]));
            }
            long[] s = byName.computeIfAbsent(canonical(name), n -> new long[4]);
            s[0]++;
            if (bytes >= 0) {
                s[1] += bytes;
                s[2]++;
            }
            s[3] += d.duration[row];
        }
        List<CollectiveStats> out = new ArrayList<>();
        byName.forEach((n, s) -> out.add(new CollectiveStats(n, s[0], s[1], s[2], s[3])));
        out.sort(Comparator.comparingLong(CollectiveStats::deviceNanos).reversed().thenComparing(CollectiveStats::name));
        return out;
    }

    /** {@code ncclKernel_AllReduce_RING_LL_Sum_float} and {@code ncclDevKernel_AllGather_...} name their collective. */
    private static String collectiveOfKernel(String kernel) {
        String[] parts = kernel.split("[_(]");
        for (int i = 0; i + 1 < parts.length; i++) {
            if (parts[i].toLowerCase(Locale.ROOT).endsWith("kernel") && !parts[i + 1].isEmpty()) {
                return parts[i + 1];
            }
        }
        return kernel.startsWith("hcom_") ? kernel.substring(5) : "other";
    }

    /** c10d's spelling: lower case, without backend prefix, underscores or dashes. */
    static String canonical(String collective) {
        String n = collective;
        int colon = n.indexOf(':');
        if (colon >= 0) {
            n = n.substring(colon + 1);
        }
        n = n.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        return n.isEmpty() ? "other" : n;
    }

    /**
     * The devices' computation and communication as analyze's {@code overlap.sql} sweeps them (all device work,
     * per device), and the steps' time and busy time as {@code idle_time.sql} (per device, the union of the work
     * each step was attributed), summed over devices.
     */
    private DeviceOverlap overlap(List<TraceStep> timed, int[] stepOfDevice) {
        EventColumns d = t.device;
        if (d.size == 0) {
            return DeviceOverlap.NONE;
        }
        Map<Integer, IntList> byDevice = new LinkedHashMap<>();
        for (int i = 0; i < d.size; i++) {
            byDevice.computeIfAbsent(d.detail[i], k -> new IntList()).add(i);
        }
        long compute = 0;
        long comm = 0;
        long overlapped = 0;
        long stepNanos = 0;
        long busy = 0;
        long allSteps = 0;
        for (TraceStep s : timed) {
            allSteps += s.durationNanos();
        }
        for (IntList rows : byDevice.values()) {
            int n = rows.size();
            long[] cf = new long[n];
            long[] ct = new long[n];
            long[] mf = new long[n];
            long[] mt = new long[n];
            int nc = 0;
            int nm = 0;
            for (int k = 0; k < n; k++) {
                int i = rows.get(k);
                if (d.kind[i] == EventColumns.COMMUNICATION) {
                    mf[nm] = d.start[i];
                    mt[nm++] = d.start[i] + d.duration[i];
                } else {
                    cf[nc] = d.start[i];
                    ct[nc++] = d.start[i] + d.duration[i];
                }
            }
            long c = Intervals.unionLength(cf, ct, nc);
            long m = Intervals.unionLength(mf, mt, nm);
            long[] af = Arrays.copyOf(cf, nc + nm);
            long[] at = Arrays.copyOf(ct, nc + nm);
            System.arraycopy(mf, 0, af, nc, nm);
            System.arraycopy(mt, 0, at, nc, nm);
            long all = Intervals.unionLength(af, at, nc + nm);
            compute += c;
            comm += m;
            overlapped += c + m - all;
            // idle_time: per step, the union of the work attributed to it
            stepNanos += allSteps;
            Map<Integer, LongList> perStep = new HashMap<>();
            for (int k = 0; k < n; k++) {
                int i = rows.get(k);
                if (stepOfDevice[i] >= 0) {
                    LongList l = perStep.computeIfAbsent(stepOfDevice[i], x -> new LongList());
                    l.add(d.start[i]);
                    l.add(d.start[i] + d.duration[i]);
                }
            }
            for (LongList l : perStep.values()) {
                busy += Intervals.union(l);
            }
        }
        return new DeviceOverlap(compute, comm, overlapped, stepNanos, busy);
    }

    private List<MemoryCurve> memory() {
        // per device: the positions of its events
        Map<Long, IntList> byDevice = new LinkedHashMap<>();
        TraceColumns.Memory m = t.memory;
        for (int i = 0; i < m.size(); i++) {
            long key = ((long) m.deviceType(i) << 32) | (m.deviceIndex(i) & 0xffffffffL);
            byDevice.computeIfAbsent(key, k -> new IntList()).add(i);
        }
        List<MemoryCurve> curves = new ArrayList<>();
        for (Map.Entry<Long, IntList> e : byDevice.entrySet()) {
            IntList rows = e.getValue();
            int n = rows.size();
            long peakAllocated = 0;
            long peakReserved = 0;
            for (int k = 0; k < n; k++) {
                peakAllocated = Math.max(peakAllocated, m.allocated.get(rows.get(k)));
                peakReserved = Math.max(peakReserved, m.reserved.get(rows.get(k)));
            }
            int slices = Math.min(n, TraceReader.MAX_CURVE_POINTS);
            List<MemoryCurve.Point> points = new ArrayList<>(slices);
            for (int s = 0; s < slices; s++) {
                int from = (int) ((long) s * n / slices);
                int to = (int) ((long) (s + 1) * n / slices);
                int best = rows.get(from);
                for (int k = from + 1; k < to; k++) {
                    if (m.allocated.get(rows.get(k)) > m.allocated.get(best)) {
                        best = rows.get(k);
                    }
                }
                points.add(new MemoryCurve.Point(t.baseNanos + m.time.get(best), m.allocated.get(best),
                        m.reserved.get(best)));
            }
            int type = (int) (e.getKey() >> 32);
            int index = (int) (long) e.getKey();
            curves.add(new MemoryCurve(deviceName(type, index), n, peakAllocated, peakReserved, points));
        }
        curves.sort(Comparator.comparing(MemoryCurve::device));
        return curves;
    }

    /**
     * The csv views' device name from c10's {@code DeviceType} number: 0 {@code CPU}, 1 {@code CUDA:i},
     * 13 {@code MPS:i}, 20 (PrivateUse1) the accelerator type {@code deviceProperties} names ({@code NPU:i}).
     */
    String deviceName(int type, int index) {
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
