package dev.vantage.device.onnxruntime.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.vantage.device.kit.ClockCalibration;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.read.OrtProfile;

/**
 * Turns one profiling session's events ({@link OrtProfile}) and the runs the Java side recorded on it
 * ({@link Run}) into device activities on the host clock, as Kineto's sessions do in {@code processTrace}:
 *
 * <ul>
 *   <li>each {@code model_run} becomes a runtime call on the thread that called {@code OrtSession.run}, matched to
 *       that call by the operating-system thread id ONNX Runtime writes and by time; it carries the call's
 *       {@code ort::run} op as its correlation and a flow id of its own;</li>
 *   <li>each node ({@code <name>_kernel_time}) becomes a kernel named by its op type on a row per ONNX Runtime
 *       thread, with the node's name, index, provider and shapes in its arguments, linked to the
 *       {@code model_run} that contains it (on its thread, by ONNX Runtime's own times) and so to its op;</li>
 *   <li>with memory, each node whose bytes in use changed becomes a {@code [memory]} report at its end.</li>
 * </ul>
 *
 * Times go from ONNX Runtime's clock (whole microseconds since the session's profiling start, an epoch in
 * nanoseconds) to {@link System#nanoTime()} through a {@link ClockCalibration} fitted on the wall clock. One pass
 * over the nodes, no object per node beyond its activity; arguments repeat run after run and are built once per
 * node and shape.
 */
final class Conversion {

    /** ONNX Runtime's cap of events per session ({@code onnxruntime/core/common/profiler.cc}). */
    static final long ORT_EVENT_CAP = 1_000_000;

    /** What one conversion found, added up over a window's sessions. */
    static final class Counts {
        long nodes;
        long modelRuns;
        long runtimeCalls;
        long unmatchedModelRuns;
        long unmatchedRuns;
        long nodesOutsideRuns;
        long runsOutsideWindow;
        long outsideWindow;
        long otherEvents;
        long memoryReports;
        long dropped;
        long cappedFiles;
        long largestRunEvents;
        final TreeSet<String> providers = new TreeSet<>();
        long memInUse = OrtProfile.ABSENT;
        long memInUsePeak = OrtProfile.ABSENT;
        long memArenaHeld = OrtProfile.ABSENT;
        long memRequestedInUse = OrtProfile.ABSENT;
    }

    private final OrtProfile e;
    private final long originEpochNanos;
    private final ClockCalibration clock;
    private final boolean memory;

    /** Per node-name id: the arguments last built for it, with what they were built from. */
    private final Args[] args;

    private Conversion(OrtProfile e, long originEpochNanos, ClockCalibration clock, boolean memory) {
        this.e = e;
        this.originEpochNanos = originEpochNanos;
        this.clock = clock;
        this.memory = memory;
        this.args = new Args[e.strings.size()];
    }

    /**
     * Converts one session's events.
     *
     * @param e the events of its profile file
     * @param originEpochNanos the session's profiling start ({@code getProfilingStartTimeInNs()})
     * @param runs the runs the Java side recorded on it, in any order
     * @param clock converts wall-clock epoch nanoseconds to {@link System#nanoTime()}
     * @param firstFlow the first flow id to give; ids go up by one per converted {@code model_run}
     * @param memory whether to report the nodes' memory
     * @param room how many more activities the window may keep; the rest are dropped and counted
     * @param out receives the activities
     * @return the next free flow id
     */
    static long convert(OrtProfile e, long originEpochNanos, List<Run> runs, ClockCalibration clock, long firstFlow,
            boolean memory, long room, List<DeviceActivity> out, Counts counts) {
        return new Conversion(e, originEpochNanos, clock, memory).run(runs, firstFlow, room, out, counts);
    }

    private long host(long micros) {
        return clock.toHostNanos(originEpochNanos + micros * 1000);
    }

    private long run(List<Run> runList, long firstFlow, long room, List<DeviceActivity> out, Counts counts) {
        if (e.total >= ORT_EVENT_CAP) {
            counts.cappedFiles++;
        }
        // the model runs, by thread and start
        int m = 0;
        int[] modelRuns = new int[16];
        for (int i = 0; i < e.size; i++) {
            if (e.kind[i] == OrtProfile.MODEL_RUN) {
                if (m == modelRuns.length) {
                    modelRuns = Arrays.copyOf(modelRuns, m * 2);
                }
                modelRuns[m++] = i;
            } else if (e.kind[i] == OrtProfile.OTHER) {
                counts.otherEvents++;
            }
        }
        Integer[] byTime = new Integer[m];
        for (int k = 0; k < m; k++) {
            byTime[k] = modelRuns[k];
        }
        Arrays.sort(byTime, Comparator.comparingLong((Integer i) -> e.tsMicros[i]).thenComparingLong(i -> e.tid[i]));

        // each model run's Java call: the latest-starting unused call on its thread that contains it
        Run[] calls = runList.toArray(new Run[0]);
        Arrays.sort(calls, Comparator.comparingLong(Run::startNanos));
        boolean[] used = new boolean[calls.length];
        long tolerance = clock.errorBoundNanos() + 2_000;
        Map<Integer, Run> callOf = new HashMap<>();
        Map<Integer, Long> flowOf = new HashMap<>();
        java.util.Set<Integer> outside = new java.util.HashSet<>();
        long flow = firstFlow;
        for (Integer mr : byTime) {
            long start = host(e.tsMicros[mr]);
            long end = host(e.tsMicros[mr] + e.durMicros[mr]);
            int k = lastStartingBefore(calls, start + tolerance);
            Run match = null;
            for (int steps = 0; k >= 0 && steps < 256; k--, steps++) {
                Run r = calls[k];
                if (!used[k] && (r.nativeTid() < 0 || r.nativeTid() == e.tid[mr]) && r.endNanos() + tolerance >= end) {
                    used[k] = true;
                    match = r;
                    break;
                }
            }
            if (match == null) {
                counts.unmatchedModelRuns++;
            } else if (!match.inWindow()) {
                // a run at the window's edge, which the window's recorder did not see: out of range
                outside.add(mr);
                counts.runsOutsideWindow++;
                counts.outsideWindow++;
                continue;
            } else {
                callOf.put(mr, match);
            }
            counts.modelRuns++;
            flowOf.put(mr, flow);
            if (room > 0) {
                out.add(new DeviceActivity("model_run", EventKind.RUNTIME, 0, e.tid[mr], start, Math.max(start, end),
                        match == null ? -1 : match.correlation(), match == null ? -1 : match.javaThreadId(), flow,
                        Map.of()));
                room--;
                counts.runtimeCalls++;
            } else {
                counts.dropped++;
            }
            flow++;
        }
        for (int k = 0; k < calls.length; k++) {
            counts.unmatchedRuns += used[k] || !calls[k].inWindow() ? 0 : 1;
        }

        // model runs per ONNX Runtime thread, by start, for the nodes to find theirs
        Map<Long, int[]> runsOfThread = new HashMap<>();
        Map<Long, List<Integer>> grouping = new LinkedHashMap<>();
        for (Integer mr : byTime) {
            grouping.computeIfAbsent(e.tid[mr], t -> new ArrayList<>()).add(mr);
        }
        grouping.forEach((t, list) -> runsOfThread.put(t, list.stream().mapToInt(Integer::intValue).toArray()));
        long[] runEvents = new long[e.size];

        long lastTid = Long.MIN_VALUE;
        int[] group = null;
        int cursor = 0;
        Map<Long, Integer> cursors = new HashMap<>();
        for (int i = 0; i < e.size; i++) {
            if (e.kind[i] != OrtProfile.NODE) {
                continue;
            }
            counts.nodes++;
            long tid = e.tid[i];
            if (tid != lastTid) {
                if (group != null) {
                    cursors.put(lastTid, cursor);
                }
                lastTid = tid;
                group = runsOfThread.get(tid);
                cursor = cursors.getOrDefault(tid, 0);
            }
            long ts = e.tsMicros[i];
            long te = ts + e.durMicros[i];
            int owner = -1;
            if (group != null) {
                while (cursor < group.length && e.tsMicros[group[cursor]] + e.durMicros[group[cursor]] < ts) {
                    cursor++;
                }
                if (cursor < group.length && contains(group[cursor], ts, te)) {
                    owner = group[cursor];
                }
            }
            if (owner < 0) {
                // a node on a thread of ONNX Runtime's own (the parallel executor): the run that contains it
                owner = containing(byTime, ts, te);
            }
            if (owner < 0) {
                counts.nodesOutsideRuns++;
            } else {
                runEvents[owner]++;
                if (outside.contains(owner)) {
                    counts.outsideWindow++;
                    continue;
                }
            }
            if (room <= 0) {
                counts.dropped++;
                continue;
            }
            Run call = owner < 0 ? null : callOf.get(owner);
            long correlation = call == null ? -1 : call.correlation();
            long launcher = call == null ? -1 : call.javaThreadId();
            long flowId = owner < 0 ? -1 : flowOf.get(owner);
            long start = host(ts);
            long end = Math.max(start, host(te));
            int opId = e.op[i];
            String name = opId >= 0 ? e.strings.get(opId) : e.strings.get(e.name[i]);
            out.add(new DeviceActivity(name, EventKind.KERNEL, 0, tid, start, end, correlation, launcher, flowId,
                    args(i)));
            room--;
            if (e.provider[i] >= 0) {
                counts.providers.add(e.strings.get(e.provider[i]));
            }
            if (e.memInUse[i] != OrtProfile.ABSENT) {
                counts.memInUse = e.memInUse[i];
                counts.memArenaHeld = e.memArenaHeld[i];
                counts.memRequestedInUse = e.memRequestedInUse[i];
                counts.memInUsePeak = Math.max(counts.memInUsePeak, e.memInUsePeak[i]);
                long delta = e.memInUseDelta[i];
                if (memory && delta != OrtProfile.ABSENT && delta != 0) {
                    if (room > 0) {
                        out.add(DeviceActivity.memoryReport(0, end, correlation, launcher,
                                new DeviceActivity.Memory(0, delta, e.memInUse[i], Math.max(0, e.memArenaHeld[i]))));
                        room--;
                        counts.memoryReports++;
                    } else {
                        counts.dropped++;
                    }
                }
            }
        }
        for (Integer mr : byTime) {
            // a run's events: its model_run, its nodes and the executor's span
            counts.largestRunEvents = Math.max(counts.largestRunEvents, runEvents[mr] + 2);
        }
        return flow;
    }

    private boolean contains(int mr, long ts, long te) {
        return e.tsMicros[mr] <= ts && te <= e.tsMicros[mr] + e.durMicros[mr];
    }

    /** The latest-starting model run (of all threads) that contains {@code [ts, te]}, or -1. */
    private int containing(Integer[] byTime, long ts, long te) {
        int lo = 0;
        int hi = byTime.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (e.tsMicros[byTime[mid]] <= ts) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        for (int k = lo - 1, steps = 0; k >= 0 && steps < 256; k--, steps++) {
            if (contains(byTime[k], ts, te)) {
                return byTime[k];
            }
        }
        return -1;
    }

    private static int lastStartingBefore(Run[] calls, long nanos) {
        int lo = 0;
        int hi = calls.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (calls[mid].startNanos() <= nanos) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - 1;
    }

    /** The arguments of a node's activity: built once per node and shape, then shared run after run. */
    private Map<String, String> args(int i) {
        int nameId = e.name[i];
        Args a = nameId >= 0 && nameId < args.length ? args[nameId] : null;
        if (a != null && a.matches(e, i)) {
            return a.map;
        }
        Map<String, String> map = new LinkedHashMap<>();
        map.put("Node name", nameId >= 0 ? e.strings.get(nameId) : "");
        if (e.nodeIndex[i] >= 0) {
            map.put("Node index", Long.toString(e.nodeIndex[i]));
        }
        if (e.provider[i] >= 0) {
            map.put("Provider", e.strings.get(e.provider[i]));
        }
        if (e.inputDims[i] >= 0) {
            map.put("Input Dims", e.string(e.inputDims[i]));
            map.put("input_type_shape", e.string(e.inputShape[i]));
        }
        if (e.outputShape[i] >= 0) {
            map.put("output_type_shape", e.string(e.outputShape[i]));
        }
        e.putSizes(map, i);
        Map<String, String> built = Map.copyOf(map);
        if (nameId >= 0 && nameId < args.length) {
            args[nameId] = new Args(e, i, built);
        }
        return built;
    }

    /** A node's arguments with the columns they were built from. */
    private record Args(int op, int provider, long index, int in, int out, long activation, long parameter,
            long output, Map<String, String> map) {

        Args(OrtProfile e, int i, Map<String, String> map) {
            this(e.op[i], e.provider[i], e.nodeIndex[i], e.inputDims[i], e.outputShape[i], e.activationSize[i],
                    e.parameterSize[i], e.outputSize[i], map);
        }

        boolean matches(OrtProfile e, int i) {
            return op == e.op[i] && provider == e.provider[i] && index == e.nodeIndex[i] && in == e.inputDims[i]
                    && out == e.outputShape[i] && activation == e.activationSize[i]
                    && parameter == e.parameterSize[i] && output == e.outputSize[i];
        }
    }
}
