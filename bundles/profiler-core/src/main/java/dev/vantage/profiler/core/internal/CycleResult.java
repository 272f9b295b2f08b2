package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.spi.ViewExporter;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;

/**
 * One completed cycle. The analysis, events, key averages and trace are built on first use, once, under this
 * object's lock; nothing is computed when the cycle completes.
 */
final class CycleResult implements ProfileResult {

    private final Cycle cycle;
    private final Outputs outputs;
    private Analysis analysis;
    private List<ProfilerEvent> events;
    private KeyAveragesImpl keyAverages;
    private RecordedTrace trace;

    /** How a result reaches the installed exporters: trace formats, and the views that are not traces. */
    interface Outputs {
        void export(Trace trace, String format, Path target) throws IOException;

        /**
         * Returns the view exporter.
         *
         * @throws IllegalStateException if none is installed
         */
        ViewExporter views();
    }

    CycleResult(Cycle cycle, Outputs outputs) {
        this.cycle = cycle;
        this.outputs = outputs;
    }

    /** Returns the frozen window, unanalysed. */
    Cycle frozen() {
        return cycle;
    }

    synchronized Analysis analysis() {
        if (analysis == null) {
            analysis = new Analysis(cycle);
        }
        return analysis;
    }

    @Override
    public int cycle() {
        return cycle.number();
    }

    @Override
    public List<Long> steps() {
        List<Long> steps = new ArrayList<>();
        cycle.steps().forEach(s -> steps.add(s.step()));
        return Collections.unmodifiableList(steps);
    }

    @Override
    public synchronized List<ProfilerEvent> events() {
        if (events == null) {
            events = buildEvents(analysis());
        }
        return events;
    }

    private static List<ProfilerEvent> buildEvents(Analysis a) {
        boolean shapes = a.cycle.options().recordShapes();
        List<ProfilerEvent> list = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, a.eventCount));
        int threads = a.cycle.threads().size();
        // children per parent id, from the parent links, in recording order
        List<List<Long>> stepChildren = new ArrayList<>();
        a.steps.forEach(s -> stepChildren.add(new ArrayList<>()));
        List<long[][]> children = new ArrayList<>();
        for (int k = 0; k < threads; k++) {
            Column parents = a.parent[k];
            int n = parents.size();
            int[] count = new int[n];
            for (int i = 0; i < n; i++) {
                int p = parents.getInt(i);
                if (p >= 0) {
                    count[p]++;
                }
            }
            ThreadBuffer.Snapshot snapshot = a.cycle.threads().get(k);
            for (int i = 0; i < n; i++) {
                if (parents.getInt(i) >= 0 && Analysis.isMemory(snapshot.kind(i))) {
                    count[parents.getInt(i)]--;
                }
            }
            long[][] kids = new long[n][];
            for (int i = 0; i < n; i++) {
                kids[i] = new long[count[i]];
                count[i] = 0;
            }
            for (int i = 0; i < n; i++) {
                if (Analysis.isMemory(snapshot.kind(i))) {
                    continue;   // allocations count toward their op's memory, as torch; they are not events here
                }
                int p = parents.getInt(i);
                if (p >= 0) {
                    kids[p][count[p]++] = a.firstId[k] + i;
                } else if (p <= -2) {
                    stepChildren.get(-2 - p).add(a.firstId[k] + i);
                }
            }
            children.add(kids);
        }
        for (int j = 0; j < a.steps.size(); j++) {
            Cycle.StepSpan s = a.steps.get(j);
            list.add(new RecordedEvent(j + 1, s.name(), EventKind.USER_ANNOTATION, s.threadId(), s.startNanos(),
                    s.endNanos(), -1, stepChildren.get(j), s.step(), "", -1, -1, j + 1, -1, -1, List.of(),
                    List.of(), List.of(), 0, a.stepSelfCpuMemory[j], a.stepSelfDeviceMemory[j]));
        }
        for (int k = 0; k < threads; k++) {
            ThreadBuffer.Snapshot s = a.cycle.threads().get(k);
            long[][] kids = children.get(k);
            for (int i = 0; i < s.size(); i++) {
                if (Analysis.isMemory(s.kind(i))) {
                    continue;
                }
                long id = a.firstId[k] + i;
                Details.Read d = a.details(k, i);
                List<Long> childIds = new ArrayList<>(kids[i].length);
                for (long c : kids[i]) {
                    childIds.add(c);
                }
                List<List<Long>> inputShapes = new ArrayList<>();
                List<String> inputTypes = new ArrayList<>();
                if (shapes) {
                    for (int x = 0; x < d.shapes().length; x++) {
                        List<Long> dims = new ArrayList<>();
                        for (long dim : d.shapes()[x]) {
                            dims.add(dim);
                        }
                        inputShapes.add(dims);
                        inputTypes.add(d.types()[x]);
                    }
                }
                List<String> stack = d.stackId() >= 0 && a.cycle.stacks() != null
                        ? a.cycle.stacks().frames(d.stackId()) : List.of();
                list.add(new RecordedEvent(id, OpNames.name(s.name(i)), EventKind.ofId(s.kind(i)), s.threadId(),
                        s.start(i), a.end(s, i), a.parentId(k, a.parent[k].getInt(i)), childIds, a.stepAt(s.start(i)),
                        "", -1, -1, id, d.sequenceNumber(), d.forwardThreadId(), inputShapes, inputTypes, stack,
                        a.flops == null ? 0 : a.flops[k][i], a.selfCpuMemory(k, i), a.selfDeviceMemory(k, i)));
            }
        }
        for (int x = 0; x < a.activities.size(); x++) {
            DeviceActivity act = a.activities.get(x);
            boolean host = !act.kind().isDeviceWork();
            list.add(new RecordedEvent(a.deviceFirstId + x, act.name(), act.kind(), act.launchThreadId(),
                    act.startNanos(), act.endNanos(), -1, List.of(), a.stepAt(act.startNanos()),
                    host ? "" : a.activityDeviceType.get(x), host ? -1 : act.deviceIndex(),
                    host ? -1 : act.streamId(), a.activityOp[x], -1, -1, List.of(), List.of(), List.of(), 0, 0, 0));
        }
        return Collections.unmodifiableList(list);
    }

    @Override
    public synchronized KeyAverages keyAverages() {
        if (keyAverages == null) {
            keyAverages = KeyAveragesImpl.of(analysis(), false, 0, false);
        }
        return keyAverages;
    }

    @Override
    public KeyAverages keyAverages(boolean groupByInputShape, int groupByStackN) {
        if (!groupByInputShape && groupByStackN == 0) {
            return keyAverages();
        }
        return KeyAveragesImpl.of(analysis(), groupByInputShape, groupByStackN, false);
    }

    @Override
    public EventAverage totalAverage() {
        return keyAverages().totalAverage();
    }

    @Override
    public synchronized Trace trace() {
        if (trace == null) {
            trace = new RecordedTrace(analysis());
        }
        return trace;
    }

    @Override
    public void exportChromeTrace(Path path) throws IOException {
        export("chrome", path);
    }

    @Override
    public void export(String format, Path target) throws IOException {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(target, "target");
        outputs.export(trace(), format, target);
    }

    @Override
    public void exportStacks(Path path, StackMetric metric) throws IOException {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(metric, "metric");
        if (!cycle.options().withStack()) {
            throw new IllegalStateException("exportStacks needs a profile recorded with withStack(true)");
        }
        outputs.views().exportStacks(trace(), metric, path);
    }

    @Override
    public void exportMemoryTimeline(Path path, String device) throws IOException {
        Objects.requireNonNull(path, "path");
        if (!cycle.options().activities().contains(Activity.MEM)) {
            throw new IllegalStateException("exportMemoryTimeline needs a profile that records memory (the MEM"
                    + " activity, profileMemory(true))");
        }
        Trace t = trace();
        String d = device == null ? MemoryTimelines.defaultDevice(t) : MemoryTimelines.normalise(device);
        MemoryTimeline timeline = MemoryTimelines.build(t, cycle.recategorized(), cycle.preexisting(),
                cycle.epochOffsetNanos(), d);
        outputs.views().exportMemoryTimeline(timeline, path);
    }
}
