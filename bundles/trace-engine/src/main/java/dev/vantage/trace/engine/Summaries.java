package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;

import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.trace.engine.store.LongLongMap;
import dev.vantage.trace.engine.summary.CollectiveStats;
import dev.vantage.trace.engine.summary.DeviceOverlap;
import dev.vantage.trace.engine.summary.KernelLaunchStats;
import dev.vantage.trace.engine.summary.KernelStats;
import dev.vantage.trace.engine.summary.MemoryCurve;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TensorCores;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The views of one analysed trace ({@link TraceSummary}): the key averages by name and by input shape, the device
 * work by name and by launching op, each step's time split by what filled it, the memory curves, the kernels' launch
 * facts, the collectives and the devices' overlap. Everything comes from the trace's one {@link Analysis} and its one
 * step rule, so the table a profile prints and these views agree by construction.
 */
final class Summaries {

    /** The most points a {@link MemoryCurve} keeps. */
    static final int MAX_CURVE_POINTS = 2000;
    private static final String[] TYPES = {"kernel", "memcpy", "memset", "communication"};

    private final Analysis a;
    private final DeviceRows d;
    private final List<TraceStep> timed;
    private final StepRule rule;

    private Summaries(Analysis a, List<TraceStep> timed, StepRule rule) {
        this.a = a;
        this.d = a.device;
        this.timed = timed;
        this.rule = rule;
    }

    static TraceSummary of(AnalysedTrace trace, Analysis a, StepRule rule, String source) {
        Summaries s = new Summaries(a, trace.steps(), rule);
        Map<String, String> m = a.data.metadata();
        int rank = AnalysedTrace.parse(m.get("rank"), -1);
        int worldSize = AnalysedTrace.parse(m.get("world_size"), 1);
        TraceSource from = a.data.source();
        long events = from == TraceSource.RECORDED ? a.eventCount : from.events();
        return new TraceSummary(source, rank, worldSize, events, s.ops(false), s.ops(true), s.kernels(false),
                s.kernels(true), s.steps(), s.memory(), from.format(), from.categories(), from.unknownEvents(),
                s.kernelLaunches(), s.collectives(), s.overlap());
    }

    private List<OpStats> ops(boolean byShape) {
        List<OpStats> out = new ArrayList<>();
        for (EventAverage r : KeyAveragesImpl.of(a, byShape, 0, false).rows()) {
            Average row = (Average) r;
            boolean device = row.kind().isDeviceWork();
            long total = device ? row.deviceTotalNanos() : row.cpuTotalNanos();
            out.add(new OpStats(row.key(), row.kind().category(), byShape ? row.inputShapes() : null, row.count(),
                    row.selfCpuNanos(), row.cpuTotalNanos(), row.selfDeviceNanos(), row.deviceTotalNanos(),
                    total / Math.max(1, row.count()), row.p99Nanos()));
        }
        // host time first, then device time (device work has none of the host's), then by name
        out.sort(Comparator.comparingLong(OpStats::totalNanos).reversed()
                .thenComparing(Comparator.comparingLong(OpStats::deviceTotalNanos).reversed())
                .thenComparing(OpStats::name).thenComparing(o -> o.inputShapes() == null ? "" : o.inputShapes()));
        return out;
    }

    /** Durations of one key, summed, with their spread. */
    private static final class Sums {
        final String name;
        final String type;
        final String op;
        long count;
        long total;
        long min = Long.MAX_VALUE;
        long max;
        final Histogram histogram = new Histogram(3);

        Sums(String name, String type, String op) {
            this.name = name;
            this.type = type;
            this.op = op;
        }

        void add(long duration) {
            count++;
            total += duration;
            min = Math.min(min, duration);
            max = Math.max(max, duration);
            histogram.recordValue(Math.max(0, duration));
        }

        KernelStats stats() {
            return new KernelStats(name, type, op, count, total, min, max, total / count,
                    Math.min(max, histogram.getValueAtPercentile(99)));
        }
    }

    /** The type of a piece of device work as the kernel view shows it. */
    private String type(int x) {
        EventKind k = d.kind(x);
        if (k != EventKind.GPU_MEMSET && d.isCommunication(x)) {
            return TYPES[3];
        }
        return k == EventKind.GPU_MEMCPY ? TYPES[1] : k == EventKind.GPU_MEMSET ? TYPES[2] : TYPES[0];
    }

    /** The name of the op a device row's handle names, or the empty string. */
    private String opName(int x) {
        long op = d.op(x);
        if (op < 0 || a.activityOp[x] < 0) {
            return "";
        }
        return a.data.name(a.rows(TraceData.threadOf(op)).name((int) TraceData.rowOf(op)));
    }

    private List<KernelStats> kernels(boolean byOp) {
        Map<String, Sums> sums = new LinkedHashMap<>();
        for (int x = 0; x < d.size(); x++) {
            if (!d.kind(x).isDeviceWork()) {
                continue;
            }
            String name = d.name(x);
            String op = byOp ? opName(x) : null;
            String type = type(x);
            sums.computeIfAbsent(byOp ? name + "\u0000" + op : name, k -> new Sums(name, type, op)).add(d.duration(x));
        }
        return sums.values().stream().map(Sums::stats).sorted(Comparator.comparingLong(KernelStats::totalNanos)
                .reversed().thenComparing(KernelStats::name).thenComparing(k -> k.op() == null ? "" : k.op()))
                .toList();
    }

    /** A step's intervals: its thread's top-level host events and runtime calls, and its device work, by type. */
    private static final class StepParts {
        final LongList host = new LongList();
        final LongList runtime = new LongList();
        final LongList[] device = {new LongList(), new LongList(), new LongList(), new LongList()};
    }

    private List<StepStats> steps() {
        int n = timed.size();
        List<StepStats> out = new ArrayList<>(n);
        if (n == 0) {
            return out;
        }
        long offset = a.data.epochOffsetNanos();
        // the trace's steps in start order (as the rule has them), and per thread the positions of its own
        StepParts[] parts = new StepParts[n];
        long[] thread = new long[n];
        Map<Long, Integer> byStart = new HashMap<>();
        for (int i = 0; i < n; i++) {
            parts[i] = new StepParts();
            byStart.put(timed.get(i).startEpochNanos(), i);
        }
        for (StepSpan s : a.steps) {
            Integer i = byStart.get(s.startNanos() + offset);
            if (i != null) {
                thread[i] = s.threadId();
            }
        }
        for (int k = 0; k < a.data.threads().size(); k++) {
            long tid = a.data.threads().get(k).threadId();
            HostRows rows = a.rows(k);
            for (int i = 0; i < rows.size(); i++) {
                if (rows.depth(i) == 0 && !Analysis.isMemory(rows.kind(i))) {
                    clip(parts, thread, tid, rows.start(i) + offset, a.end(rows, i) + offset, false);
                }
            }
        }
        for (int x = 0; x < d.size(); x++) {
            EventKind k = d.kind(x);
            if (k == EventKind.RUNTIME) {
                clip(parts, thread, d.launchThreadId(x), d.start(x) + offset, d.end(x) + offset, true);
            } else if (k.isDeviceWork()) {
                long launch = a.activityOpStart[x] < 0 ? -1 : a.activityOpStart[x] + offset;
                int step = rule.indexOf(d.start(x) + offset, launch);
                if (step >= 0) {
                    int t = typeIndex(x);
                    parts[step].device[t].add(d.start(x));
                    parts[step].device[t].add(d.end(x));
                }
            }
        }
        for (int i = 0; i < n; i++) {
            out.add(breakdown(timed.get(i), parts[i], offset));
        }
        return out;
    }

    private int typeIndex(int x) {
        String t = type(x);
        for (int i = 0; i < TYPES.length; i++) {
            if (TYPES[i].equals(t)) {
                return i;
            }
        }
        return 0;
    }

    /** Adds a host interval to the steps of its thread it overlaps, clipped to each (times since the epoch). */
    private void clip(StepParts[] parts, long[] thread, long tid, long start, long end, boolean runtime) {
        int first = rule.indexAt(start);
        if (first < 0) {
            // it may begin before a step and reach into it: the steps after its start
            for (first = 0; first < timed.size() && timed.get(first).startEpochNanos() < start; first++) {
                // finds the first step that starts after the interval's start
            }
        }
        long offset = a.data.epochOffsetNanos();
        for (int j = first; j < timed.size() && timed.get(j).startEpochNanos() < end; j++) {
            if (thread[j] != tid) {
                continue;
            }
            long from = Math.max(start, timed.get(j).startEpochNanos());
            long to = Math.min(end, timed.get(j).endEpochNanos());
            if (from < to) {
                (runtime ? parts[j].runtime : parts[j].host).add(from - offset);
                (runtime ? parts[j].runtime : parts[j].host).add(to - offset);
            }
        }
    }

    private StepStats breakdown(TraceStep s, StepParts p, long offset) {
        LongList[] dev = p.device;
        long[] unions = Intervals.cumulativeUnions(dev[0], dev[1], dev[2], dev[3], p.runtime, p.host);
        long kernel = unions[0];
        long withMemcpy = unions[1];
        long compute = unions[2];
        long busy = unions[3];
        long withRuntime = unions[4];
        long withHost = unions[5];
        long duration = s.durationNanos();
        return new StepStats(s.number(), s.startEpochNanos(), duration, kernel, withMemcpy - kernel,
                compute - withMemcpy, busy - compute, withRuntime - busy, withHost - withRuntime,
                Math.max(0, duration - withHost));
    }

    private List<KernelLaunchStats> kernelLaunches() {
        // a kernel's name and its arguments are interned, so the pair of ids is the key: no text per kernel
        LongLongMap index = new LongLongMap();
        List<double[]> sums = new ArrayList<>();
        List<String[]> keys = new ArrayList<>();
        Map<String, Integer> rows = new HashMap<>();
        for (int x = 0; x < d.size(); x++) {
            if (d.kind(x) != EventKind.KERNEL) {
                continue;
            }
            long id = (long) d.nameId(x) << 32 | (d.argsId(x) & 0xFFFFFFFFL);
            int at = (int) index.get(id, -1);
            if (at < 0) {
                Map<String, String> args = d.args(x);
                String grid = args.get("grid");
                String block = args.get("block");
                String geometry = grid != null && block != null ? "grid " + grid + " block " + block
                        + (args.containsKey("registers per thread") ? " regs " + args.get("registers per thread") : "")
                        + (args.containsKey("shared memory") ? " smem " + args.get("shared memory") : "") : "";
                String name = d.name(x);
                // two argument maps can give one geometry (they differ in occupancy): one row
                String key = name + "\u0000" + geometry;
                Integer row = rows.get(key);
                if (row == null) {
                    row = keys.size();
                    rows.put(key, row);
                    keys.add(new String[] {name, geometry});
                    // count, nanos, occupancy weighted, its weight, blocks per SM weighted, warps per SM weighted,
                    // their weight
                    sums.add(new double[7]);
                }
                at = row;
                index.put(id, at);
            }
            double[] s = sums.get(at);
            long duration = d.duration(x);
            s[0]++;
            s[1] += duration;
            double occupancy = d.number(x, "est. achieved occupancy %");
            if (!Double.isNaN(occupancy)) {
                s[2] += occupancy * duration;
                s[3] += duration;
            }
            double blocks = d.number(x, "blocks per SM");
            double warps = d.number(x, "warps per SM");
            if (!Double.isNaN(blocks) && !Double.isNaN(warps)) {
                s[4] += blocks * duration;
                s[5] += warps * duration;
                s[6] += duration;
            }
        }
        List<KernelLaunchStats> out = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            String[] k = keys.get(i);
            double[] s = sums.get(i);
            out.add(new KernelLaunchStats(k[0], k[1], (long) s[0], (long) s[1], s[3] > 0 ? (Double) (s[2] / s[3]) : null,
                    s[6] > 0 ? (Double) (s[4] / s[6]) : null, s[6] > 0 ? (Double) (s[5] / s[6]) : null,
                    TensorCores.uses(k[0])));
        }
        out.sort(Comparator.comparingLong(KernelLaunchStats::totalNanos).reversed()
                .thenComparing(KernelLaunchStats::name).thenComparing(KernelLaunchStats::geometry));
        return out;
    }

    private List<CollectiveStats> collectives() {
        Map<String, long[]> byName = new LinkedHashMap<>();
        for (int x = 0; x < d.size(); x++) {
            if (!d.kind(x).isDeviceWork() || !type(x).equals(TYPES[3])) {
                continue;
            }
            Map<String, String> args = d.args(x);
            String name = args.get(DeviceNames.COLLECTIVE_NAME);
            long bytes = messageBytes(args);
            long op = d.op(x);
            if (op >= 0 && a.activityOp[x] >= 0) {
                int k = TraceData.threadOf(op);
                int row = (int) TraceData.rowOf(op);
                String opName = a.data.name(a.rows(k).name(row));
                if (name == null && DeviceNames.isCollectiveOp(opName) && !opName.equals("record_param_comms")) {
                    name = opName;
                }
                if (bytes < 0) {
                    Map<String, String> hostArgs = a.data.hostArgs().get(op);
                    bytes = hostArgs == null ? -1 : messageBytes(hostArgs);
                }
                if (bytes < 0 && DeviceNames.isCollectiveOp(opName)) {
                    bytes = inputBytes(a.details(k, row));
                }
            }
            if (name == null) {
                name = DeviceNames.collectiveOfKernel(d.name(x));
            }
            long[] s = byName.computeIfAbsent(DeviceNames.canonicalCollective(name), n -> new long[4]);
            s[0]++;
            if (bytes >= 0) {
                s[1] += bytes;
                s[2]++;
            }
            s[3] += d.duration(x);
        }
        List<CollectiveStats> out = new ArrayList<>();
        byName.forEach((n, s) -> out.add(new CollectiveStats(n, s[0], s[1], s[2], s[3])));
        out.sort(Comparator.comparingLong(CollectiveStats::deviceNanos).reversed().thenComparing(CollectiveStats::name));
        return out;
    }

    /** A collective's message bytes: {@code In msg nelems} (or {@code In msg size}) times its dtype's size, or -1. */
    private static long messageBytes(Map<String, String> args) {
        String elements = args.getOrDefault("In msg nelems", args.get("In msg size"));
        String dtype = args.get("dtype");
        if (elements == null || dtype == null) {
            return -1;
        }
        int size = DeviceNames.elementSize(dtype);
        try {
            return size > 0 ? Long.parseLong(elements.strip()) * size : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The bytes of an op's tensor inputs whose dtype's size is known, or -1 when none is. */
    private static long inputBytes(Details.Read details) {
        long total = 0;
        boolean any = false;
        for (int i = 0; i < details.shapes().length; i++) {
            int size = DeviceNames.elementSize(details.types()[i]);
            if (size > 0 && details.shapes()[i].length > 0) {
                long elements = 1;
                for (long dim : details.shapes()[i]) {
                    elements *= Math.max(0, dim);
                }
                total += elements * size;
                any = true;
            }
        }
        return any ? total : -1;
    }

    /**
     * The devices' computation and communication as {@code vantage analyze}'s {@code overlap.sql} sweeps them (all
     * device work, per device), and the steps' time and busy time as {@code idle_time.sql} (per device, the union of
     * the work each step was attributed), summed over devices.
     */
    private DeviceOverlap overlap() {
        List<Integer> rows = new ArrayList<>();
        for (int x = 0; x < d.size(); x++) {
            if (d.kind(x).isDeviceWork()) {
                rows.add(x);
            }
        }
        if (rows.isEmpty()) {
            return DeviceOverlap.NONE;
        }
        long allSteps = 0;
        for (TraceStep s : timed) {
            allSteps += s.durationNanos();
        }
        long offset = a.data.epochOffsetNanos();
        rows.sort(Comparator.comparing((Integer x) -> d.deviceType(x)).thenComparingInt(d::deviceIndex)
                .thenComparingLong(d::start));
        long compute = 0;
        long comm = 0;
        long all = 0;
        long stepNanos = 0;
        long busy = 0;
        String device = null;
        long[] seg = new long[6];
        java.util.Arrays.fill(seg, Long.MIN_VALUE);
        Map<Integer, long[]> stepSeg = new HashMap<>();
        for (int x : rows) {
            String key = d.deviceType(x) + ":" + d.deviceIndex(x);
            if (!key.equals(device)) {
                compute += length(seg, 0);
                comm += length(seg, 2);
                all += length(seg, 4);
                for (long[] s : stepSeg.values()) {
                    busy += s[2] + length(s, 0);
                }
                stepSeg.clear();
                java.util.Arrays.fill(seg, Long.MIN_VALUE);
                device = key;
                stepNanos += allSteps;
            }
            long from = d.start(x);
            long to = d.end(x);
            int which = type(x).equals(TYPES[3]) ? 2 : 0;
            long add = extend(seg, which, from, to);
            if (which == 0) {
                compute += add;
            } else {
                comm += add;
            }
            all += extend(seg, 4, from, to);
            long launch = a.activityOpStart[x] < 0 ? -1 : a.activityOpStart[x] + offset;
            int step = rule.indexOf(from + offset, launch);
            if (step >= 0) {
                long[] s = stepSeg.computeIfAbsent(step, z -> new long[] {Long.MIN_VALUE, Long.MIN_VALUE, 0});
                s[2] += extend(s, 0, from, to);
            }
        }
        compute += length(seg, 0);
        comm += length(seg, 2);
        all += length(seg, 4);
        for (long[] s : stepSeg.values()) {
            busy += s[2] + length(s, 0);
        }
        return new DeviceOverlap(compute, comm, compute + comm - all, stepNanos, busy);
    }

    private static long length(long[] seg, int at) {
        return seg[at] == Long.MIN_VALUE ? 0 : seg[at + 1] - seg[at];
    }

    /**
     * Adds {@code [from, to)} (intervals come by ascending start) to the running segment at {@code seg[at]},
     * {@code seg[at + 1]}; returns the length of the segment it closes, if the interval starts after it.
     */
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

    /** One curve per device with memory events: host instants and a device's own reports, in time order. */
    private List<MemoryCurve> memory() {
        Map<String, List<long[]>> byDevice = new LinkedHashMap<>();
        long[] m = new long[6];
        long offset = a.data.epochOffsetNanos();
        for (int k = 0; k < a.data.threads().size(); k++) {
            HostRows rows = a.rows(k);
            if (a.detailsAt[k] == null) {
                continue;
            }
            for (int i = 0; i < rows.size(); i++) {
                if (rows.kind(i) == EventKind.MEMORY.id() && a.detailsAt[k].getLong(i) >= 0
                        && Details.readMemory(a.data.threads().get(k).details(), a.detailsAt[k].getLong(i), m)) {
                    byDevice.computeIfAbsent(deviceName(a.data.name((int) m[0]), (int) m[1]), z -> new ArrayList<>())
                            .add(new long[] {rows.start(i) + offset, m[4], m[5]});
                }
            }
        }
        for (int x = 0; x < d.size(); x++) {
            if (d.kind(x) == EventKind.MEMORY) {
                byDevice.computeIfAbsent(deviceName(d.deviceType(x), d.deviceIndex(x)), z -> new ArrayList<>())
                        .add(new long[] {d.start(x) + offset, d.memoryTotalAllocated(x), d.memoryTotalReserved(x)});
            }
        }
        List<MemoryCurve> curves = new ArrayList<>();
        byDevice.forEach((device, events) -> {
            // in time order, ties as read: a Chrome trace writes each thread in turn, a .pftrace all by time
            events.sort(Comparator.comparingLong(e -> e[0]));
            int n = events.size();
            long peakAllocated = 0;
            long peakReserved = 0;
            for (long[] e : events) {
                peakAllocated = Math.max(peakAllocated, e[1]);
                peakReserved = Math.max(peakReserved, e[2]);
            }
            int slices = Math.min(n, MAX_CURVE_POINTS);
            List<MemoryCurve.Point> points = new ArrayList<>(slices);
            for (int s = 0; s < slices; s++) {
                int from = (int) ((long) s * n / slices);
                int to = (int) ((long) (s + 1) * n / slices);
                long[] best = events.get(from);
                for (int j = from + 1; j < to; j++) {
                    if (events.get(j)[1] > best[1]) {
                        best = events.get(j);
                    }
                }
                points.add(new MemoryCurve.Point(best[0], best[1], best[2]));
            }
            curves.add(new MemoryCurve(device, n, peakAllocated, peakReserved, points));
        });
        curves.sort(Comparator.comparing(MemoryCurve::device));
        return curves;
    }

    /** The csv views' device name: {@code CPU}, else the type in capitals and the index ({@code NPU:0}). */
    static String deviceName(String type, int index) {
        return type.equals("cpu") ? "CPU" : type.toUpperCase(Locale.ROOT) + ":" + Math.max(0, index);
    }
}
