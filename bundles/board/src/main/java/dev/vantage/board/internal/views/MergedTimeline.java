package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.board.api.ViewSection;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.StepSpan;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.device.ClockAlignment;
import dev.vantage.trace.engine.store.HostRows;

/**
 * One step of every rank of a job on one timeline, each rank's clock moved onto the lowest rank's by the shift
 * {@link ClockAlignment} finds from the ends of their collectives (what {@code vantage merge} applies to the whole
 * files). A rank shows its step span, each host thread's outermost events and each device stream's work; the
 * {@link TimelineView} of one rank has the nesting.
 */
final class MergedTimeline {

    private MergedTimeline() {
    }

    /** What one rank gives: its collectives, and its slices of the step in epoch nanoseconds on its own clock. */
    record Rank(int rank, Map<String, long[]> collectives, long fromNanos, List<String> lanes, List<long[]> times,
            List<String> names, List<String> kinds) {
    }

    /** The merged step and the shift each rank was given. */
    record Merged(ViewSection.Timeline timeline, List<ClockAlignment.Shift> shifts, List<Integer> ranks) {
    }

    /**
     * A rank's part of step {@code step} ({@code ProfilerStep#step}), or of the whole trace when it has no such step:
     * read while its trace is open, so the trace itself is not kept.
     */
    static Rank of(AnalysedTrace trace, int rank, long step) {
        TraceData data = trace.data();
        long offset = data.epochOffsetNanos();
        long from = data.startNanos();
        long to = data.stopNanos();
        for (StepSpan s : data.steps()) {
            if (s.number() == step && s.threadId() != -1) {
                from = s.startNanos();
                to = s.endNanos();
            }
        }
        // a step's device work may end after its span: the window runs to the end of the work its launches made
        DeviceRows device = data.device();
        long end = to;
        for (int i = 0; i < device.size(); i++) {
            if (device.kind(i).isDeviceWork() && device.start(i) >= from && device.start(i) < to + 1) {
                end = Math.max(end, device.end(i));
            }
        }
        Rank out = new Rank(rank, ClockAlignment.collectives(data), from + offset, new ArrayList<>(),
                new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        String prefix = "rank " + rank + " · ";
        for (StepSpan s : data.steps()) {
            if (s.endNanos() > from && s.startNanos() < end) {
                add(out, prefix + "steps", Math.max(from, s.startNanos()) + offset,
                        Math.min(end, s.endNanos()) + offset, s.name(), EventKind.USER_ANNOTATION.category());
            }
        }
        for (HostThread t : data.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size() && rows.start(i) < end; i++) {
                if (rows.depth(i) == 0 && rows.end(i) > from && rows.end(i) > rows.start(i)) {
                    add(out, prefix + t.name() + " (" + t.threadId() + ")", Math.max(from, rows.start(i)) + offset,
                            Math.min(end, rows.end(i)) + offset, data.name(rows.name(i)),
                            EventKind.ofId(rows.kind(i)).category());
                }
            }
        }
        for (int i = 0; i < device.size(); i++) {
            if (device.kind(i).isDeviceWork() && device.end(i) > from && device.start(i) < end) {
                add(out, prefix + device.deviceType(i) + " " + device.deviceIndex(i) + " stream " + device.streamId(i),
                        Math.max(from, device.start(i)) + offset, Math.min(end, device.end(i)) + offset,
                        device.name(i), device.kind(i).category());
            }
        }
        return out;
    }

    private static void add(Rank r, String lane, long start, long end, String name, String kind) {
        r.lanes().add(lane);
        r.times().add(new long[] {start, end});
        r.names().add(name);
        r.kinds().add(kind);
    }

    /**
     * The ranks' parts on the lowest rank's clock, from the earliest shifted start; at most {@code maxSlices}, the
     * longest.
     */
    static Merged merge(List<Rank> ranks, int maxSlices) {
        Map<Integer, Map<String, long[]>> collectives = new TreeMap<>();
        for (int i = 0; i < ranks.size(); i++) {
            collectives.put(i, ranks.get(i).collectives());
        }
        Map<Integer, ClockAlignment.Shift> byIndex = ClockAlignment.shifts(collectives);
        long origin = Long.MAX_VALUE;
        for (int i = 0; i < ranks.size(); i++) {
            origin = Math.min(origin, ranks.get(i).fromNanos() + byIndex.get(i).nanos());
        }
        Map<String, Integer> lanes = new LinkedHashMap<>();
        List<List<Object>> slices = new ArrayList<>();
        List<ClockAlignment.Shift> shifts = new ArrayList<>();
        for (int i = 0; i < ranks.size(); i++) {
            Rank r = ranks.get(i);
            ClockAlignment.Shift s = byIndex.get(i);
            shifts.add(new ClockAlignment.Shift(r.rank(), s.nanos(), s.matched(), s.kernels(), s.spreadNanos()));
            for (int k = 0; k < r.lanes().size(); k++) {
                int lane = lanes.computeIfAbsent(r.lanes().get(k), x -> lanes.size());
                long[] t = r.times().get(k);
                List<Object> slice = new ArrayList<>(5);
                slice.add(lane);
                slice.add(t[0] + s.nanos() - origin);
                slice.add(t[1] + s.nanos() - origin);
                slice.add(r.names().get(k));
                slice.add(r.kinds().get(k));
                slices.add(slice);
            }
        }
        long total = slices.size();
        if (slices.size() > maxSlices) {
            slices.sort(Comparator.comparingLong((List<Object> x) -> (Long) x.get(1) - (Long) x.get(2)));
            slices = new ArrayList<>(slices.subList(0, maxSlices));
        }
        return new Merged(new ViewSection.Timeline(new ArrayList<>(lanes.keySet()), slices, total), shifts,
                ranks.stream().map(Rank::rank).toList());
    }
}
