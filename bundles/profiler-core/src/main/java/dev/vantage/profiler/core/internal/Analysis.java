package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;

/**
 * What post-processing derives from a {@link Cycle}, computed once and in time linear in the number of events:
 * event ids, each host event's parent (by the nesting depth it was recorded at, or the step annotation around a
 * top-level event), self times, where each event's details are, device time per op, and FLOPs.
 *
 * <p>Ids: step annotations first ({@code 1..S}), then each thread's events in recording order, then device work.
 * A parent is stored as the slot of the parent on the same thread, {@code -1} for none, or {@code -2 - k} for the
 * k-th step annotation.
 */
final class Analysis {

    final Cycle cycle;
    final List<Cycle.StepSpan> steps;
    final long[] firstId;
    final Column[] parent;
    final Column[] selfNanos;
    /** Per thread, per event: the position of its details in the thread's arena, or -1; null if it has none. */
    final Column[] detailsAt;
    /** Per thread, per event: device time of kernels the event launched itself; null without device work. */
    final long[][] selfDevice;
    /** Per thread, per event: device time including nested events; null without device work. */
    final long[][] totalDevice;
    final long[] stepSelfNanos;
    final long[] stepDeviceNanos;
    /** Per thread, per event: FLOPs by formula; null without withFlops. */
    final long[][] flops;
    /**
     * Per thread, per event, host and device memory allocated less freed, own and with nested events; null for a
     * thread that recorded no allocation (read them through {@link #selfCpuMemory(int, int)} and its siblings).
     */
    final long[][] selfCpuMemory;
    final long[][] totalCpuMemory;
    final long[][] selfDeviceMemory;
    final long[][] totalDeviceMemory;
    /** Per step annotation: memory allocated directly inside it, and with everything nested. */
    final long[] stepSelfCpuMemory;
    final long[] stepCpuMemory;
    final long[] stepSelfDeviceMemory;
    final long[] stepDeviceMemory;
    /** True when the cycle holds memory events. */
    final boolean hasMemory;
    /** The device type of the first device memory event, or the empty string. */
    final String memoryDeviceType;
    final List<DeviceActivity> activities;
    final List<String> activityDeviceType;
    /**
     * Per device activity: whether its flow id has both ends in this cycle, a launch and device work of the same
     * source; an exporter draws an {@code ac2g} arrow only then.
     */
    final BitSet pairedFlow;
    /** Per device activity: the id of the host op that launched it, or -1. */
    final long[] activityOp;
    /** Per device activity: the {@code nanoTime} start of the host op that launched it, or -1. */
    final long[] activityOpStart;
    final long deviceFirstId;
    final long eventCount;
    final long droppedHost;
    final long droppedDevice;
    final String deviceType;
    final List<TraceDevice> devices;

    Analysis(Cycle cycle) {
        this.cycle = cycle;
        this.steps = cycle.steps();
        int t = cycle.threads().size();
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
            ThreadBuffer.Snapshot s = cycle.threads().get(k);
            firstId[k] = next;
            next += s.size();
            dropped += s.dropped();
            link(k, s);
        }
        this.droppedHost = dropped;

        List<DeviceActivity> acts = new ArrayList<>();
        List<String> actTypes = new ArrayList<>();
        List<TraceDevice> devs = new ArrayList<>();
        long droppedDev = 0;
        String type = "";
        BitSet paired = new BitSet();
        for (DeviceActivities d : cycle.devices()) {
            markPairedFlows(d.activities(), acts.size(), paired);
            droppedDev += d.droppedRecords();
            devs.addAll(d.devices());
            String dt = d.devices().isEmpty() ? "" : d.devices().get(0).type();
            for (DeviceActivity a : d.activities()) {
                acts.add(a);
                actTypes.add(dt);
            }
            if (type.isEmpty() && !d.activities().isEmpty()) {
                type = dt;
            }
        }
        devs.sort(Comparator.comparing(TraceDevice::type).thenComparingInt(TraceDevice::index));
        this.devices = List.copyOf(devs);
        this.activities = acts;
        this.pairedFlow = paired;
        this.activityDeviceType = actTypes;
        this.droppedDevice = droppedDev;
        this.deviceType = type;
        this.deviceFirstId = next;
        this.eventCount = next - 1 + acts.size();
        this.activityOp = new long[acts.size()];
        this.activityOpStart = new long[acts.size()];
        this.stepDeviceNanos = new long[steps.size()];
        if (acts.isEmpty()) {
            this.selfDevice = null;
            this.totalDevice = null;
        } else {
            this.selfDevice = new long[t][];
            this.totalDevice = new long[t][];
            attributeDeviceTime();
        }
        this.flops = cycle.options().withFlops() ? countFlops() : null;
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

    /**
     * Adds each allocation and free to the event that was open when it happened (its parent by depth), then sums
     * the totals up the tree, as torch's {@code cpu_memory_usage} and {@code self_cpu_memory_usage}.
     */
    private boolean attributeMemory(String[] deviceType) {
        boolean any = false;
        long[] m = new long[6];
        for (int k = 0; k < cycle.threads().size(); k++) {
            ThreadBuffer.Snapshot s = cycle.threads().get(k);
            int n = s.size();
            if (detailsAt[k] == null || !hasMemoryEvent(s)) {
                continue;   // a thread that allocated nothing needs no per-event memory columns
            }
            long[] selfCpu = new long[n];
            long[] selfDev = new long[n];
            for (int i = 0; i < n; i++) {
                if (s.kind(i) != EventKind.MEMORY.id() || detailsAt[k].get(i) < 0
                        || !Details.readMemory(s.extras(), detailsAt[k].get(i), m)) {
                    continue;
                }
                any = true;
                boolean host = OpNames.name((int) m[0]).equals("cpu");
                if (!host && deviceType[0].isEmpty()) {
                    deviceType[0] = OpNames.name((int) m[0]);
                }
                int p = parent[k].getInt(i);
                if (p >= 0) {
                    (host ? selfCpu : selfDev)[p] += m[3];
                } else if (p <= -2) {
                    (host ? stepSelfCpuMemory : stepSelfDeviceMemory)[-2 - p] += m[3];
                    (host ? stepCpuMemory : stepDeviceMemory)[-2 - p] += m[3];
                }
            }
            long[] totalCpu = selfCpu.clone();
            long[] totalDev = selfDev.clone();
            for (int i = n - 1; i >= 0; i--) {
                int p = parent[k].getInt(i);
                if (p >= 0) {
                    totalCpu[p] += totalCpu[i];
                    totalDev[p] += totalDev[i];
                } else if (p <= -2 && !isMemory(s.kind(i))) {
                    stepCpuMemory[-2 - p] += totalCpu[i];
                    stepDeviceMemory[-2 - p] += totalDev[i];
                }
            }
            selfCpuMemory[k] = selfCpu;
            totalCpuMemory[k] = totalCpu;
            selfDeviceMemory[k] = selfDev;
            totalDeviceMemory[k] = totalDev;
        }
        return any;
    }

    private static boolean hasMemoryEvent(ThreadBuffer.Snapshot s) {
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

    private void link(int k, ThreadBuffer.Snapshot s) {
        int n = s.size();
        Column parents = Column.ints(n, 0);
        Column self = Column.longs(n, 0);
        Column details = null;
        long detailPos = 0;
        int[] openAtDepth = new int[16];
        // the step annotations of this thread, in order, become parents of its top-level events
        List<Integer> ownSteps = new ArrayList<>();
        for (int j = 0; j < steps.size(); j++) {
            if (steps.get(j).threadId() == s.threadId()) {
                ownSteps.add(j);
            }
        }
        int stepCursor = 0;
        for (int i = 0; i < n; i++) {
            int depth = s.depth(i);
            long start = s.start(i);
            long duration = end(s, i) - start;
            self.add(i, duration);
            int p;
            if (depth > 0) {
                // the parent is the last event recorded one level up: it was still open when this one began
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
                    Cycle.StepSpan span = steps.get(ownSteps.get(stepCursor));
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
            if (s.hasExtras(i)) {
                if (details == null) {
                    details = Column.longs(n, -1);
                }
                // entries are written only for flagged events, in recording order
                if (detailPos < s.extras().size() && Details.slot(s.extras(), detailPos) == i) {
                    details.set(i, detailPos);
                    detailPos = Details.skip(s.extras(), detailPos);
                }
            }
        }
        parent[k] = parents;
        selfNanos[k] = self;
        detailsAt[k] = details;
    }

    /** Marks, from {@code base} on, the activities of one source whose flow id both a launch and device work carry. */
    private static void markPairedFlows(List<DeviceActivity> source, int base, BitSet paired) {
        Set<Long> launches = new HashSet<>();
        Set<Long> work = new HashSet<>();
        for (DeviceActivity a : source) {
            if (a.flowId() >= 0) {
                if (a.kind() == EventKind.RUNTIME) {
                    launches.add(a.flowId());
                } else if (a.kind().isDeviceWork()) {
                    work.add(a.flowId());
                }
            }
        }
        for (int i = 0; i < source.size(); i++) {
            long flow = source.get(i).flowId();
            if (flow >= 0 && launches.contains(flow) && work.contains(flow)) {
                paired.set(base + i);
            }
        }
    }

    private void attributeDeviceTime() {
        int t = cycle.threads().size();
        for (int k = 0; k < t; k++) {
            selfDevice[k] = new long[cycle.threads().get(k).size()];
            totalDevice[k] = new long[cycle.threads().get(k).size()];
        }
        for (int a = 0; a < activities.size(); a++) {
            DeviceActivity act = activities.get(a);
            long handle = act.correlationId();
            activityOp[a] = -1;
            activityOpStart[a] = -1;
            if (handle < 0) {
                continue;
            }
            boolean deviceWork = act.kind().isDeviceWork();
            int k = (int) (handle >>> ThreadBuffer.SLOT_BITS);
            long slot = handle & ThreadBuffer.SLOT_MASK;
            if (k < t && slot < cycle.threads().get(k).size()) {
                activityOp[a] = firstId[k] + slot;
                activityOpStart[a] = cycle.threads().get(k).start((int) slot);
                if (deviceWork) {
                    selfDevice[k][(int) slot] += act.endNanos() - act.startNanos();
                } else if (act.kind() == EventKind.RUNTIME) {
                    // a launch runs inside the op that made it: as torch's tree, it is not the op's self time
                    Column self = selfNanos[k];
                    self.set((int) slot, Math.max(0, self.get((int) slot) - (act.endNanos() - act.startNanos())));
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
        int t = cycle.threads().size();
        long[][] result = new long[t][];
        for (int k = 0; k < t; k++) {
            ThreadBuffer.Snapshot s = cycle.threads().get(k);
            long[] f = new long[s.size()];
            Column at = detailsAt[k];
            if (at != null) {
                for (int i = 0; i < f.length; i++) {
                    if (at.get(i) >= 0) {
                        Details.Read d = Details.read(s.extras(), at.get(i), null);
                        f[i] = Flops.of(OpNames.name(s.name(i)), d.shapes());
                    }
                }
            }
            result[k] = f;
        }
        return result;
    }

    /**
     * Returns the end of a host event: the stop time for an event still open at stop, or one that ended after it
     * (its thread wrote the end while the window was being handed over), so that no event outlasts its window.
     */
    long end(ThreadBuffer.Snapshot s, int i) {
        long end = s.end(i);
        long stop = Math.max(cycle.stopNanos(), s.start(i));
        return end == 0 || end < s.start(i) || end > stop ? stop : end;
    }

    /** Returns an event's details, or {@link Details.Read#NONE}. */
    Details.Read details(int k, int i) {
        Column at = detailsAt[k];
        if (at == null || at.get(i) < 0) {
            return Details.Read.NONE;
        }
        return Details.read(cycle.threads().get(k).extras(), at.get(i), null);
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
        long[] starts = cycle.stepStarts();
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
