package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;

/**
 * A trace's events as objects ({@code Profile.events()}): step spans, host events (memory instants count for their
 * op and are no events, as in torch), and device activities, each with its children's ids. Built once, on demand:
 * tables and exporters never need it.
 */
final class EventList {

    private EventList() {
    }

    static List<ProfilerEvent> of(Analysis a) {
        boolean shapes = a.data.recordShapes();
        List<ProfilerEvent> list = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, a.eventCount));
        int threads = a.data.threads().size();
        // children per parent id, from the parent links, in row order
        List<List<Long>> stepChildren = new ArrayList<>();
        a.steps.forEach(s -> stepChildren.add(new ArrayList<>()));
        List<long[][]> children = new ArrayList<>();
        for (int k = 0; k < threads; k++) {
            children.add(children(a, k, stepChildren));
        }
        for (int j = 0; j < a.steps.size(); j++) {
            StepSpan s = a.steps.get(j);
            list.add(new RecordedEvent(j + 1, s.name(), EventKind.USER_ANNOTATION, s.threadId(), s.startNanos(),
                    s.endNanos(), -1, stepChildren.get(j), s.number(), "", -1, -1, j + 1, -1, -1, List.of(),
                    List.of(), List.of(), 0, a.stepSelfCpuMemory[j], a.stepSelfDeviceMemory[j]));
        }
        for (int k = 0; k < threads; k++) {
            HostThread h = a.data.threads().get(k);
            HostRows s = h.rows();
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
                list.add(new RecordedEvent(id, a.data.name(s.name(i)), EventKind.ofId(s.kind(i)), h.threadId(),
                        s.start(i), a.end(s, i), a.parentId(k, a.parent[k].getInt(i)), childIds, a.stepAt(s.start(i)),
                        "", -1, -1, id, d.sequenceNumber(), d.forwardThreadId(), inputShapes, inputTypes,
                        a.data.stack(d.stackId()), a.flops == null ? 0 : a.flops[k][i], a.selfCpuMemory(k, i),
                        a.selfDeviceMemory(k, i)));
            }
        }
        DeviceRows dev = a.device;
        for (int x = 0; x < dev.size(); x++) {
            EventKind kind = dev.kind(x);
            if (Analysis.isMemory(kind.id())) {
                // as the host's memory instants: in the trace and the memory columns, not an event of their own
                continue;
            }
            boolean host = !kind.isDeviceWork();
            list.add(new RecordedEvent(a.deviceFirstId + x, dev.name(x), kind, dev.launchThreadId(x), dev.start(x),
                    dev.end(x), -1, List.of(), a.stepAt(dev.start(x)), host ? "" : dev.deviceType(x),
                    host ? -1 : dev.deviceIndex(x), host ? -1 : dev.streamId(x), a.activityOp[x], -1, -1, List.of(),
                    List.of(), List.of(), 0, 0, 0));
        }
        return Collections.unmodifiableList(list);
    }

    /** One thread's children per event (memory instants left out), adding its top-level events to their steps'. */
    private static long[][] children(Analysis a, int k, List<List<Long>> stepChildren) {
        Column parents = a.parent[k];
        HostRows rows = a.rows(k);
        int n = rows.size();
        int[] count = new int[n];
        for (int i = 0; i < n; i++) {
            int p = parents.getInt(i);
            if (p >= 0 && !Analysis.isMemory(rows.kind(i))) {
                count[p]++;
            }
        }
        long[][] kids = new long[n][];
        for (int i = 0; i < n; i++) {
            kids[i] = new long[count[i]];
            count[i] = 0;
        }
        for (int i = 0; i < n; i++) {
            if (Analysis.isMemory(rows.kind(i))) {
                continue;   // allocations count toward their op's memory, as torch; they are not events here
            }
            int p = parents.getInt(i);
            if (p >= 0) {
                kids[p][count[p]++] = a.firstId[k] + i;
            } else if (p <= -2) {
                stepChildren.get(-2 - p).add(a.firstId[k] + i);
            }
        }
        return kids;
    }
}
