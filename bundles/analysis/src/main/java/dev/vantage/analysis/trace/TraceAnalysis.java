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
        final LongColumn durations;

        OpSums(String name, String shapes, ColumnStore store) {
            this.name = name;
            this.shapes = shapes;
            this.durations = new LongColumn(store);
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
        final LongColumn durations;

        KernelSums(String name, String type, String op, ColumnStore store) {
            this.name = name;
            this.type = type;
            this.op = op;
            this.durations = new LongColumn(store);
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
        final LongColumn[] parent;
        final LongColumn[] self;
        final LongColumn[] deviceSelf;
        final LongColumn[] deviceTotal;

        HostDetails(TraceColumns t) {
            int n = t.threads.size();
            parent = new LongColumn[n];
            self = new LongColumn[n];
            deviceSelf = new LongColumn[n];
            deviceTotal = new LongColumn[n];
            for (int i = 0; i < n; i++) {
                int size = t.threads.get(i).size;
                parent[i] = LongColumn.filled(t.store, size, -1);
                self[i] = LongColumn.filled(t.store, size, 0);
                deviceSelf[i] = LongColumn.filled(t.store, size, 0);
                deviceTotal[i] = LongColumn.filled(t.store, size, 0);
            }
        }
    }

    private static final String[] TYPES = {"kernel", "memcpy", "memset", "communication"};
    /** How far an event may end after the one it starts in before that is an overlap: the legacy format's unit. */
    private static final long ROUNDING_NANOS = 1000;

    private final TraceColumns t;
    private final Linkage link;
    private final HostDetails details;
    private final LongLongMap deviceByOp;
    private final LongLongMap runtimeByOp;
    private final Map<Integer, OpSums> opsByName = new LinkedHashMap<>();
    private final Map<List<Integer>, OpSums> opsByShape = new LinkedHashMap<>();
    private final List<StepSpan> steps = new ArrayList<>();
    private final Overlaps overlaps;
    private StepRule rule;

    /**
     * @param withDetails whether to keep every host event's parent, self and device times ({@link #details()})
     */
    TraceAnalysis(TraceColumns parsed, boolean withDetails) {
        this.t = parsed;
        this.link = new Linkage(parsed);
        this.deviceByOp = new LongLongMap(parsed.store);
        this.runtimeByOp = new LongLongMap(parsed.store);
        this.details = withDetails ? new HostDetails(parsed) : null;
        this.overlaps = new Overlaps(parsed.threads.size());
    }

    /** The host events that overlap an enclosing one on their thread, once {@link #summary} ran. */
    Overlaps overlaps() {
        return overlaps;
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
        long op = link.opOfDevice.get(deviceRow);
        return op == Linkage.NONE ? -1 : t.threads.get(Linkage.thread(op)).start.get(Linkage.row(op));
    }

    TraceSummary summary(String source) {
        EventColumns d = t.device;
        for (int i = 0; i < d.size; i++) {
            deviceByOp.add(link.opOfDevice.get(i), d.duration.get(i));
        }
        for (int th = 0; th < t.threads.size(); th++) {
            EventColumns c = t.threads.get(th);
            for (int i = 0; i < c.size; i++) {
                if (c.kind.get(i) == EventColumns.RUNTIME) {
                    runtimeByOp.add(link.opOfRuntime.get(Linkage.id(th, i), Linkage.NONE), c.duration.get(i));
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
        IntColumn stepOfDevice = new IntColumn(t.store);
        for (int i = 0; i < d.size; i++) {
            String type = TYPES[d.kind.get(i) - EventColumns.KERNEL];
            String name = t.names.get(d.name.get(i));
            kernels.computeIfAbsent(d.name.get(i), k -> new KernelSums(name, type, null, t.store)).add(d.duration.get(i));
            long op = link.opOfDevice.get(i);
            int opName = op == Linkage.NONE ? -1 : t.threads.get(Linkage.thread(op)).name.get(Linkage.row(op));
            kernelsByOp.computeIfAbsent(List.of(d.name.get(i), opName),
                    k -> new KernelSums(name, type, opName < 0 ? "" : t.names.get(opName), t.store)).add(d.duration.get(i));
            int index = rule.attribute(d.start.get(i), launchStart(i), d.start.get(i) + d.duration.get(i));
            stepOfDevice.add(index);
            StepSpan step = index < 0 ? null : steps.get(index);
            if (step != null) {
                step.device[d.kind.get(i) - EventColumns.KERNEL].add(d.start.get(i));
                step.device[d.kind.get(i) - EventColumns.KERNEL].add(d.start.get(i) + d.duration.get(i));
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
        IntColumn order = link.order[th];
        int[] stack = new int[32];
        long[] childNanos = new long[32];
        long[] ownDevice = new long[32];
        long[] allDevice = new long[32];
        int depth = 0;
        int[] cursor = {0};
        for (int n = 0; n < order.size(); n++) {
            int i = order.get(n);
            long start = c.start.get(i);
            long end = start + c.duration.get(i);
            byte kind = c.kind.get(i);
            boolean runtime = kind == EventColumns.RUNTIME || kind == EventColumns.DRIVER;
            // an event that starts inside an open one and ends after it (pytorch#174555) is its sibling, as torch's
            // own tree takes it (its key averages count the time they share in both); beyond the format's
            // microsecond, such an event is counted as a repair
            boolean overlapping = false;
            while (depth > 0 && end > c.start.get(stack[depth - 1]) + c.duration.get(stack[depth - 1])) {
                long topEnd = c.start.get(stack[depth - 1]) + c.duration.get(stack[depth - 1]);
                overlapping |= topEnd > start && end - topEnd > ROUNDING_NANOS;
                depth--;
                close(th, c, stack[depth], childNanos[depth], ownDevice[depth], allDevice[depth]);
                if (depth > 0) {
                    allDevice[depth - 1] += allDevice[depth];
                }
            }
            if (overlapping) {
                overlaps.add(th, i);
            }
            if (kind != EventColumns.STEP && (depth == 0 || depth == 1 && c.kind.get(stack[0]) == EventColumns.STEP)) {
                clipToSteps(ownSteps, cursor, start, end, false);
            }
            if (details != null && depth > 0) {
                details.parent[th].set(i, stack[depth - 1]);
            }
            if (runtime) {
                // a runtime call is not a child by time: as the profiler's own tree (and torch's), it belongs to
                // the op that launched it (Linkage), even when it ran on another thread (a collective's comm thread)
                clipToSteps(ownSteps, cursor, start, end, true);
                continue;
            }
            if (depth > 0) {
                childNanos[depth - 1] += c.duration.get(i);
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
        long duration = c.duration.get(i);
        long self = Math.max(0, duration - childNanos - runtimeByOp.get(Linkage.id(th, i), 0));
        if (details != null) {
            details.self[th].set(i, self);
            details.deviceSelf[th].set(i, ownDevice);
            details.deviceTotal[th].set(i, allDevice);
        }
        if (c.kind.get(i) != EventColumns.OP) {
            return;
        }
        String name = t.names.get(c.name.get(i));
        opsByName.computeIfAbsent(c.name.get(i), k -> new OpSums(name, null, t.store)).add(duration, self, ownDevice, allDevice);
        opsByShape.computeIfAbsent(List.of(c.name.get(i), c.detail.get(i)), k -> new OpSums(name, t.shapes.get(c.detail.get(i)), t.store)).add(duration, self, ownDevice, allDevice);
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
            long op = link.opOfDevice.get(row);
            if (op != Linkage.NONE) {
                EventColumns c = t.threads.get(Linkage.thread(op));
                String opName = t.names.get(c.name.get(Linkage.row(op)));
                if (name == null && KinetoJsonReader.isCollective(opName) && !opName.equals("record_param_comms")) {
                    name = opName;
                }
                if (bytes < 0) {
                    bytes = t.hostCommBytes.get(op, -1);
                }
            }
            if (name == null) {
                name = collectiveOfKernel(t.names.get(d.name.get(row)));
            }
            long[] s = byName.computeIfAbsent(canonical(name), n -> new long[4]);
            s[0]++;
            if (bytes >= 0) {
                s[1] += bytes;
                s[2]++;
            }
            s[3] += d.duration.get(row);
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
    private DeviceOverlap overlap(List<TraceStep> timed, IntColumn stepOfDevice) {
        EventColumns d = t.device;
        if (d.size == 0) {
            return DeviceOverlap.NONE;
        }
        long allSteps = 0;
        for (TraceStep s : timed) {
            allSteps += s.durationNanos();
        }
        // device work by device, then start: one sweep keeps the unions of compute, communication, both, and of
        // each step's work, as running segments (no interval list is held)
        IntColumn order = new IntColumn(t.store);
        for (int i = 0; i < d.size; i++) {
            order.add(i);
        }
        sortByDeviceAndStart(order, d);
        long compute = 0;
        long comm = 0;
        long all = 0;
        long stepNanos = 0;
        long busy = 0;
        int device = Integer.MIN_VALUE;
        long[] seg = new long[6]; // compute, communication, all: [from, to) each; MIN_VALUE while empty
        java.util.Arrays.fill(seg, Long.MIN_VALUE);
        Map<Integer, long[]> stepSeg = new HashMap<>();
        for (int k = 0; k < d.size; k++) {
            int i = order.get(k);
            if (d.detail.get(i) != device) {
                compute += length(seg, 0);
                comm += length(seg, 2);
                all += length(seg, 4);
                for (long[] x : stepSeg.values()) {
                    busy += x[2] + length(x, 0);
                }
                stepSeg.clear();
                java.util.Arrays.fill(seg, Long.MIN_VALUE);
                device = d.detail.get(i);
                stepNanos += allSteps;
            }
            long from = d.start.get(i);
            long to = from + d.duration.get(i);
            int which = d.kind.get(i) == EventColumns.COMMUNICATION ? 2 : 0;
            long add = extend(seg, which, from, to);
            if (which == 0) {
                compute += add;
            } else {
                comm += add;
            }
            all += extend(seg, 4, from, to);
            int step = stepOfDevice.get(i);
            if (step >= 0) {
                long[] x = stepSeg.computeIfAbsent(step, z -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE, 0});
                x[2] += extend(x, 0, from, to);
            }
        }
        compute += length(seg, 0);
        comm += length(seg, 2);
        all += length(seg, 4);
        for (long[] x : stepSeg.values()) {
            busy += x[2] + length(x, 0);
        }
        return new DeviceOverlap(compute, comm, compute + comm - all, stepNanos, busy);
    }

    /**
     * Adds {@code [from, to)} (intervals come by ascending start) to the running segment at {@code seg[at]},
     * {@code seg[at + 1]}; returns the length of the segment it closes, if the interval starts after it.
     */
    private static long length(long[] seg, int at) {
        return seg[at] == Long.MIN_VALUE ? 0 : seg[at + 1] - seg[at];
    }

    private static long extend(long[] seg, int at, long from, long to) {
        if (seg[at] == Long.MIN_VALUE) {
            seg[at] = from;
            seg[at + 1] = to;
            return 0;
        }
        if (from > seg[at + 1]) {
            long closed = seg[at + 1] - seg[at];
            seg[at] = from;
            seg[at + 1] = to;
            return closed;
        }
        seg[at + 1] = Math.max(seg[at + 1], to);
        return 0;
    }

    /** Sorts device rows by device, then start: a heap sort in place (no extra memory). */
    private static void sortByDeviceAndStart(IntColumn a, EventColumns d) {
        int n = a.size();
        boolean sorted = true;
        for (int k = 1; k < n && sorted; k++) {
            sorted = !lessThan(d, a.get(k), a.get(k - 1));
        }
        if (sorted) {
            return;
        }
        for (int i = n / 2 - 1; i >= 0; i--) {
            sift(a, d, i, n);
        }
        for (int end = n - 1; end > 0; end--) {
            int x = a.get(0);
            a.set(0, a.get(end));
            a.set(end, x);
            sift(a, d, 0, end);
        }
    }

    private static boolean lessThan(EventColumns d, int x, int y) {
        int dx = d.detail.get(x);
        int dy = d.detail.get(y);
        return dx != dy ? dx < dy : d.start.get(x) < d.start.get(y);
    }

    private static void sift(IntColumn a, EventColumns d, int i, int n) {
        int v = a.get(i);
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && lessThan(d, a.get(child), a.get(child + 1))) {
                child++;
            }
            if (!lessThan(d, v, a.get(child))) {
                break;
            }
            a.set(i, a.get(child));
            i = child;
        }
        a.set(i, v);
    }

    private List<MemoryCurve> memory() {
        // per device: the positions of its events
        Map<Long, IntColumn> byDevice = new LinkedHashMap<>();
        TraceColumns.Memory m = t.memory;
        for (int i = 0; i < m.size(); i++) {
            long key = ((long) m.deviceType(i) << 32) | (m.deviceIndex(i) & 0xffffffffL);
            byDevice.computeIfAbsent(key, k -> new IntColumn(t.store)).add(i);
        }
        List<MemoryCurve> curves = new ArrayList<>();
        for (Map.Entry<Long, IntColumn> e : byDevice.entrySet()) {
            IntColumn rows = inTimeOrder(e.getValue(), m.time);
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
     * A device's memory events in time order, ties in the order read: a trace writes each thread's events in turn
     * (Chrome JSON) or all of them by time (a {@code .pftrace}), and the curve is the same either way. Events read
     * in time order already cost no sort.
     */
    private IntColumn inTimeOrder(IntColumn rows, LongColumn time) {
        int n = rows.size();
        boolean sorted = true;
        for (int k = 1; k < n && sorted; k++) {
            sorted = time.get(rows.get(k - 1)) <= time.get(rows.get(k));
        }
        if (sorted) {
            return rows;
        }
        int[] a = new int[n];
        for (int k = 0; k < n; k++) {
            a[k] = rows.get(k);
        }
        int[] b = new int[n];
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    // stable: on a tie, the left (earlier read) one first
                    if (j >= hi || i < mid && time.get(a[i]) <= time.get(a[j])) {
                        b[k] = a[i++];
                    } else {
                        b[k] = a[j++];
                    }
                }
            }
            int[] swap = a;
            a = b;
            b = swap;
        }
        IntColumn ordered = new IntColumn(t.store);
        for (int k = 0; k < n; k++) {
            ordered.add(a[k]);
        }
        return ordered;
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
