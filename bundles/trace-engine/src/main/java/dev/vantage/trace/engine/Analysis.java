package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.store.BlockSource;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;

/**
 * What the engine derives from a {@link TraceData}, computed once and in time linear in the number of events:
 * event ids, each host event's parent (by the nesting depth it was recorded or nested at, or the step span around a
 * top-level event), self times, where each event's details are, device time per op and up the tree, memory per op
 * and up the tree, and FLOPs. The one place of these answers: the trace model's cursor, the key averages, the event
 * list and every view read them from here.
 *
 * <p>Ids: step spans first ({@code 1..S}), then each thread's events in row order, then device activities. A parent
 * is stored as the row of the parent on the same thread, {@code -1} for none, or {@code -2 - k} for the k-th step.
 * An event's self time is its duration less its children's and less the runtime calls it made (a launch runs inside
 * the op that made it but is not its self time, as torch's tree). Device work counts for the op whose handle it
 * carries ({@link DeviceRows#op}); a device's memory report likewise.
 *
 * <p>Derived columns come from one {@link BlockSource}: direct memory for a recorded window, a spill file for a read
 * one. Immutable once built.
 */
final class Analysis {

    final TraceData data;
    final List<StepSpan> steps;
    final long[] firstId;
    final Column[] parent;
    final Column[] selfNanos;
    /** Per thread, per event: the position of its details, or -1; null for a thread without details. */
    final Column[] detailsAt;
    /** Per thread, per event: device time of work the event launched itself; null without device work. */
    final long[][] selfDevice;
    /** Per thread, per event: device time including nested events; null without device work. */
    final long[][] totalDevice;
    final long[] stepSelfNanos;
    final long[] stepDeviceNanos;
    /** Per thread, per event: FLOPs by formula; null without withFlops. */
    final long[][] flops;
    /** Per thread, per event, host and device memory allocated less freed, own and with nested events. */
    final long[][] selfCpuMemory;
    final long[][] totalCpuMemory;
    final long[][] selfDeviceMemory;
    final long[][] totalDeviceMemory;
    /** Per step: memory allocated directly inside it, and with everything nested. */
    final long[] stepSelfCpuMemory;
    final long[] stepCpuMemory;
    final long[] stepSelfDeviceMemory;
    final long[] stepDeviceMemory;
    /** True when the trace holds memory events. */
    final boolean hasMemory;
    /** The device type of the first device memory event, or the empty string. */
    final String memoryDeviceType;
    final DeviceRows device;
    /** Per device row: whether its flow has both ends, a launch and device work; only then is an arrow drawn. */
    final BitSet pairedFlow;
    /** Per device row: the id of the host op that launched it, or -1. */
    final long[] activityOp;
    /** Per device row: the start of the host op that launched it, or -1. */
    final long[] activityOpStart;
    final long deviceFirstId;
    final long eventCount;
    final long droppedHost;
    /** The type of the first device that did work, or the empty string: it names the table's device columns. */
    final String deviceType;

    Analysis(TraceData data, BlockSource columns) {
        this.data = data;
        this.steps = data.steps();
        int t = data.threads().size();
        this.firstId = new long[t];
        this.parent = new Column[t];
        this.selfNanos = new Column[t];
        this.detailsAt = new Column[t];
        long next = steps.size() + 1;
        long dropped = 0;
        this.stepSelfNanos = new long[steps.size()];
        for (int k = 0; k < steps.size(); k++) {
            stepSelfNanos[k] = steps.get(k).endNanos() - steps.get(k).startNanos();
        }
        for (int k = 0; k < t; k++) {
            HostThread h = data.threads().get(k);
            firstId[k] = next;
            next += h.rows().size();
            dropped += h.droppedEvents();
            link(k, h, columns);
        }
        this.droppedHost = dropped;
        this.device = data.device();
        int n = device.size();
        this.pairedFlow = markPairedFlows(device);
        String type = "";
        for (int x = 0; x < n && type.isEmpty(); x++) {
            if (device.kind(x).isDeviceWork()) {
                type = device.deviceType(x);
            }
        }
        this.deviceType = type;
        this.deviceFirstId = next;
        this.eventCount = next - 1 + n;
        this.activityOp = new long[n];
        this.activityOpStart = new long[n];
        this.stepDeviceNanos = new long[steps.size()];
        Arrays.fill(activityOp, -1);
        Arrays.fill(activityOpStart, -1);
        if (n == 0) {
            this.selfDevice = null;
            this.totalDevice = null;
        } else {
            this.selfDevice = new long[t][];
            this.totalDevice = new long[t][];
            attributeDeviceTime();
        }
        this.flops = data.withFlops() ? countFlops() : null;
        this.selfCpuMemory = new long[t][];
        this.totalCpuMemory = new long[t][];
        this.selfDeviceMemory = new long[t][];
        this.totalDeviceMemory = new long[t][];
        this.stepSelfCpuMemory = new long[steps.size()];
        this.stepCpuMemory = new long[steps.size()];
        this.stepSelfDeviceMemory = new long[steps.size()];
        this.stepDeviceMemory = new long[steps.size()];
        String[] memoryType = {""};
        this.hasMemory = attributeMemory(memoryType);
        this.memoryDeviceType = memoryType[0];
    }

    /** Returns true for the instants of allocations, frees and failed allocations. */
    static boolean isMemory(int kind) {
        return kind == EventKind.MEMORY.id() || kind == EventKind.OUT_OF_MEMORY.id();
    }

    HostRows rows(int k) {
        return data.threads().get(k).rows();
    }

    /**
     * Adds each allocation and free to the event that was open when it happened (its parent), then sums the totals
     * up the tree, as torch's {@code cpu_memory_usage} and {@code self_cpu_memory_usage}. A device's own memory
     * reports count for the host op that launched the work.
     */
    private boolean attributeMemory(String[] memoryType) {
        boolean any = false;
        long[] m = new long[6];
        int threads = data.threads().size();
        // a device's after-the-fact memory reports count for the op of their handle: its thread needs columns too
        boolean[] reported = new boolean[threads];
        for (int x = 0; x < device.size(); x++) {
            long handle = device.op(x);
            if (device.kind(x) == EventKind.MEMORY && handle >= 0 && TraceData.threadOf(handle) < threads) {
                reported[TraceData.threadOf(handle)] = true;
            }
        }
        for (int k = 0; k < threads; k++) {
            HostThread h = data.threads().get(k);
            HostRows s = h.rows();
            int n = s.size();
            if (!reported[k] && (detailsAt[k] == null || !hasMemoryEvent(s))) {
                continue;   // a thread that allocated nothing needs no per-event memory columns
            }
            long[] selfCpu = new long[n];
            long[] selfDev = new long[n];
            for (int i = 0; detailsAt[k] != null && i < n; i++) {
                if (s.kind(i) != EventKind.MEMORY.id() || detailsAt[k].getLong(i) < 0
                        || !Details.readMemory(h.details(), detailsAt[k].getLong(i), m)) {
                    continue;
                }
                any = true;
                boolean host = data.name((int) m[0]).equals("cpu");
                if (!host && memoryType[0].isEmpty()) {
                    memoryType[0] = data.name((int) m[0]);
                }
                int p = parent[k].getInt(i);
                if (p >= 0) {
                    (host ? selfCpu : selfDev)[p] += m[3];
                } else if (p <= -2) {
                    (host ? stepSelfCpuMemory : stepSelfDeviceMemory)[-2 - p] += m[3];
                    (host ? stepCpuMemory : stepDeviceMemory)[-2 - p] += m[3];
                }
            }
            selfCpuMemory[k] = selfCpu;
            selfDeviceMemory[k] = selfDev;
        }
        for (int x = 0; x < device.size(); x++) {
            if (device.kind(x) != EventKind.MEMORY) {
                continue;
            }
            any = true;
            if (memoryType[0].isEmpty()) {
                memoryType[0] = device.deviceType(x);
            }
            long handle = device.op(x);
            int k = TraceData.threadOf(handle);
            long slot = TraceData.rowOf(handle);
            if (handle >= 0 && k < threads && selfDeviceMemory[k] != null && slot < selfDeviceMemory[k].length) {
                selfDeviceMemory[k][(int) slot] += device.memoryBytes(x);
            }
        }
        for (int k = 0; k < threads; k++) {
            if (selfCpuMemory[k] == null) {
                continue;
            }
            HostRows s = rows(k);
            long[] totalCpu = selfCpuMemory[k].clone();
            long[] totalDev = selfDeviceMemory[k].clone();
            for (int i = totalCpu.length - 1; i >= 0; i--) {
                int p = parent[k].getInt(i);
                if (p >= 0) {
                    totalCpu[p] += totalCpu[i];
                    totalDev[p] += totalDev[i];
                } else if (p <= -2 && !isMemory(s.kind(i))) {
                    stepCpuMemory[-2 - p] += totalCpu[i];
                    stepDeviceMemory[-2 - p] += totalDev[i];
                }
            }
            totalCpuMemory[k] = totalCpu;
            totalDeviceMemory[k] = totalDev;
        }
        return any;
    }

    private static boolean hasMemoryEvent(HostRows s) {
        for (int i = 0; i < s.size(); i++) {
            if (s.kind(i) == EventKind.MEMORY.id()) {
                return true;
            }
        }
        return false;
    }

    /** Returns the bytes an event allocated on the host itself (not in its children); 0 on a thread without any. */
    long selfCpuMemory(int k, int i) {
        long[] m = selfCpuMemory[k];
        return m == null ? 0 : m[i];
    }

    /** Returns the bytes an event and its children allocated on the host. */
    long totalCpuMemory(int k, int i) {
        long[] m = totalCpuMemory[k];
        return m == null ? 0 : m[i];
    }

    /** Returns the bytes an event allocated on a device itself. */
    long selfDeviceMemory(int k, int i) {
        long[] m = selfDeviceMemory[k];
        return m == null ? 0 : m[i];
    }

    /** Returns the bytes an event and its children allocated on a device. */
    long totalDeviceMemory(int k, int i) {
        long[] m = totalDeviceMemory[k];
        return m == null ? 0 : m[i];
    }

    private void link(int k, HostThread h, BlockSource columns) {
        HostRows s = h.rows();
        int n = s.size();
        Column parents = Column.ints(columns, n, 0);
        Column self = Column.longs(columns, n, 0);
        Column details = null;
        long detailPos = 0;
        int[] openAtDepth = new int[16];
        // the step spans of this thread, in order, become parents of its top-level events
        List<Integer> ownSteps = new ArrayList<>();
        for (int j = 0; j < steps.size(); j++) {
            if (steps.get(j).threadId() == h.threadId()) {
                ownSteps.add(j);
            }
        }
        int stepCursor = 0;
        Column arena = h.details();
        for (int i = 0; i < n; i++) {
            int depth = s.depth(i);
            long start = s.start(i);
            long duration = end(s, i) - start;
            self.add(i, duration);
            int p;
            if (depth > 0) {
                // the parent is the last event one level up: it was still open when this one began
                p = openAtDepth[depth - 1] - 1;
                if (p >= 0) {
                    self.add(p, -duration);
                }
            } else {
                while (stepCursor < ownSteps.size() && steps.get(ownSteps.get(stepCursor)).endNanos() <= start) {
                    stepCursor++;
                }
                p = -1;
                if (stepCursor < ownSteps.size()) {
                    StepSpan span = steps.get(ownSteps.get(stepCursor));
                    if (span.startNanos() <= start) {
                        p = -2 - ownSteps.get(stepCursor);
                        stepSelfNanos[ownSteps.get(stepCursor)] -= duration;
                    }
                }
            }
            parents.set(i, p);
            if (depth >= openAtDepth.length) {
                openAtDepth = Arrays.copyOf(openAtDepth, Math.max(depth + 1, openAtDepth.length * 2));
            }
            openAtDepth[depth] = i + 1;
            if (arena != null && s.hasDetails(i)) {
                if (details == null) {
                    details = Column.longs(columns, n, -1);
                }
                // entries are written only for flagged events, in row order
                if (detailPos < arena.size() && Details.slot(arena, detailPos) == i) {
                    details.set(i, detailPos);
                    detailPos = Details.skip(arena, detailPos);
                }
            }
        }
        parent[k] = parents;
        selfNanos[k] = self;
        detailsAt[k] = details;
    }

    /**
     * Marks the device rows whose flow id both a launch and device work carry. The two kinds' ids are sorted into
     * arrays and searched, so a million flows box nothing.
     */
    private static BitSet markPairedFlows(DeviceRows d) {
        long[] launches = new long[d.size()];
        long[] work = new long[d.size()];
        int nl = 0;
        int nw = 0;
        for (int i = 0; i < d.size(); i++) {
            long flow = d.flowId(i);
            if (flow >= 0) {
                if (d.kind(i) == EventKind.RUNTIME) {
                    launches[nl++] = flow;
                } else if (d.kind(i).isDeviceWork()) {
                    work[nw++] = flow;
                }
            }
        }
        Arrays.sort(launches, 0, nl);
        Arrays.sort(work, 0, nw);
        BitSet paired = new BitSet();
        for (int i = 0; i < d.size(); i++) {
            long flow = d.flowId(i);
            if (flow >= 0 && Arrays.binarySearch(launches, 0, nl, flow) >= 0
                    && Arrays.binarySearch(work, 0, nw, flow) >= 0) {
                paired.set(i);
            }
        }
        return paired;
    }

    private void attributeDeviceTime() {
        int t = data.threads().size();
        for (int k = 0; k < t; k++) {
            selfDevice[k] = new long[rows(k).size()];
            totalDevice[k] = new long[rows(k).size()];
        }
        for (int a = 0; a < device.size(); a++) {
            long handle = device.op(a);
            if (handle < 0) {
                continue;
            }
            EventKind kind = device.kind(a);
            int k = TraceData.threadOf(handle);
            long slot = TraceData.rowOf(handle);
            if (k < t && slot < rows(k).size()) {
                activityOp[a] = firstId[k] + slot;
                activityOpStart[a] = rows(k).start((int) slot);
                if (kind.isDeviceWork()) {
                    selfDevice[k][(int) slot] += device.duration(a);
                } else if (kind == EventKind.RUNTIME) {
                    // a launch runs inside the op that made it: as torch's tree, it is not the op's self time
                    Column self = selfNanos[k];
                    self.set((int) slot, Math.max(0, self.get((int) slot) - device.duration(a)));
                }
            }
        }
        for (int k = 0; k < t; k++) {
            long[] self = selfDevice[k];
            long[] total = totalDevice[k];
            Column parents = parent[k];
            for (int i = self.length - 1; i >= 0; i--) {
                total[i] += self[i];
                int p = parents.getInt(i);
                if (p >= 0) {
                    total[p] += total[i];
                } else if (p <= -2) {
                    stepDeviceNanos[-2 - p] += total[i];
                }
            }
        }
    }

    private long[][] countFlops() {
        int t = data.threads().size();
        long[][] result = new long[t][];
        for (int k = 0; k < t; k++) {
            HostRows s = rows(k);
            long[] f = new long[s.size()];
            Column at = detailsAt[k];
            if (at != null) {
                for (int i = 0; i < f.length; i++) {
                    if (at.getLong(i) >= 0 && !isMemory(s.kind(i))) {
                        f[i] = Flops.of(data.name(s.name(i)), details(k, i).shapes());
                    }
                }
            }
            result[k] = f;
        }
        return result;
    }

    /**
     * Returns the end of a host event: the window's stop for an event still open at stop, or one that ended after
     * it (its thread wrote the end while the window was being handed over), so that no event outlasts its window.
     */
    long end(HostRows s, int i) {
        long end = s.end(i);
        long stop = Math.max(data.stopNanos(), s.start(i));
        return end == 0 || end < s.start(i) || end > stop ? stop : end;
    }

    /** Returns an event's details, or {@link Details.Read#NONE}. */
    Details.Read details(int k, int i) {
        Column at = detailsAt[k];
        if (at == null || at.getLong(i) < 0 || isMemory(rows(k).kind(i))) {
            return Details.Read.NONE;
        }
        return Details.read(data.threads().get(k).details(), at.getLong(i), data.names(), null);
    }

    /** Returns the id of a parent as stored in {@link #parent}, or -1. */
    long parentId(int k, int p) {
        if (p >= 0) {
            return firstId[k] + p;
        }
        return p <= -2 ? -1 - p : -1;
    }

    /** Returns the step during which a time falls: the number of steps begun at or before it. */
    long stepAt(long nanos) {
        long[] starts = data.stepStarts();
        int lo = 0;
        int hi = starts.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] <= nanos) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return Math.max(0, lo - 1);
    }
}
