package dev.vantage.perfetto.format;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.perfetto.format.PerfettoTrace.Counter;
import dev.vantage.perfetto.format.PerfettoTrace.Flow;
import dev.vantage.perfetto.format.PerfettoTrace.Slice;
import dev.vantage.perfetto.format.PerfettoTrace.Track;

/**
 * Collects what {@link PerfettoTraceReader#stream} hands over into a {@link PerfettoTrace}: every event is kept, then
 * ordered as Perfetto orders them (time, then file order) and begins paired with ends per track. A damaged file is
 * refused with the byte offset of its damage ({@code damaged at byte N: ...}).
 */
final class PerfettoTraceCollector implements PerfettoEvents {

    private final Map<Long, Track> tracks = new LinkedHashMap<>();
    private final Map<String, String> attributes = new LinkedHashMap<>();
    private final List<PerfettoEvent> events = new ArrayList<>();
    private final List<String> problems = new ArrayList<>();

    @Override
    public void track(Track track) {
        tracks.put(track.uuid(), track);
    }

    @Override
    public void attribute(String key, String value) {
        attributes.put(key, value);
    }

    @Override
    public void event(PerfettoEvent event) {
        events.add(event);
    }

    @Override
    public void problem(String what) {
        problems.add(what);
    }

    @Override
    public void damagedPacket(long offset) throws IOException {
        throw new IOException("damaged at byte " + offset + ": a packet that does not parse");
    }

    @Override
    public void cutOff(long offset) throws IOException {
        throw new IOException("damaged at byte " + offset + ": the file ends inside a packet");
    }

    @Override
    public void unreadable(long offset, String why) throws IOException {
        throw new IOException("damaged at byte " + offset + ": " + why);
    }

    /** Orders the events as Perfetto does (time, then file order) and pairs begins with ends per track. */
    PerfettoTrace trace(long packets) {
        List<Integer> order = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.<Integer>comparingLong(i -> events.get(i).timestampNanos()).thenComparingInt(i -> i));
        List<Slice> slices = new ArrayList<>();
        List<Counter> counters = new ArrayList<>();
        List<Flow> flows = new ArrayList<>();
        Map<Long, ArrayDeque<Integer>> stacks = new HashMap<>();
        Map<Long, Integer> openFlows = new HashMap<>();
        for (int i : order) {
            PerfettoEvent r = events.get(i);
            long ts = r.timestampNanos();
            if (r.type() == PerfettoEvent.Type.COUNTER) {
                counters.add(new Counter(r.trackUuid(), ts, r.counterValue()));
                continue;
            }
            if (!tracks.containsKey(r.trackUuid())) {
                problems.add("an event at " + ts + " is on track " + r.trackUuid() + ", which no descriptor declared");
            }
            ArrayDeque<Integer> stack = stacks.computeIfAbsent(r.trackUuid(), k -> new ArrayDeque<>());
            if (r.type() == PerfettoEvent.Type.SLICE_END) {
                Integer top = stack.poll();
                if (top == null) {
                    problems.add("an end at " + ts + " on track " + r.trackUuid() + " has no begin");
                    continue;
                }
                Slice s = slices.get(top);
                slices.set(top, new Slice(s.index(), s.trackUuid(), s.startNanos(), ts - s.startNanos(), s.name(),
                        s.category(), false, s.depth(), s.parent(), s.correlationId(), s.args()));
                continue;
            }
            boolean instant = r.type() == PerfettoEvent.Type.INSTANT;
            int index = slices.size();
            Integer parent = stack.peek();
            slices.add(new Slice(index, r.trackUuid(), ts, instant ? 0 : -1, r.name(), r.category(), instant,
                    stack.size(), parent == null ? -1 : parent, r.correlationId(), r.args()));
            if (!instant) {
                stack.push(index);
            }
            for (long id : r.flowIds()) {
                Integer from = openFlows.put(id, index);
                if (from != null) {
                    flows.add(new Flow(id, from, index));
                }
            }
            for (long id : r.terminatingFlowIds()) {
                Integer from = openFlows.remove(id);
                if (from == null) {
                    problems.add("flow " + id + " ends at " + ts + " but never started");
                } else {
                    flows.add(new Flow(id, from, index));
                }
            }
        }
        stacks.forEach((track, stack) -> {
            if (!stack.isEmpty()) {
                problems.add(stack.size() + " slices on track " + track + " never end");
            }
        });
        return new PerfettoTrace(new ArrayList<>(tracks.values()), slices, counters, flows, attributes, packets,
                problems);
    }
}
