package dev.vantage.analysis;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;

import dev.vantage.perfetto.format.proto.CounterDescriptor;
import dev.vantage.perfetto.format.proto.ProcessDescriptor;
import dev.vantage.perfetto.format.proto.ThreadDescriptor;
import dev.vantage.perfetto.format.proto.TraceAttributes;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TrackDescriptor;
import dev.vantage.perfetto.format.proto.TrackEvent;

/**
 * {@code vantage merge ... -o job.pftrace}: the merged job written as a Perfetto protobuf trace instead of Kineto JSON.
 * It takes the events {@code merge} makes for its JSON (every rank's processes its own, times on the reference rank's
 * clock, overflow lanes for slices that would not nest, flow ids kept apart by rank) and writes, rank after rank: a
 * process track per pid and a thread track per thread (names from the JSON's metadata events), then each track's
 * slices as begin and end events in the order they nest, instants, counter values, and the flows on the slices they
 * bind to (a flow's start on the slice enclosing it, its end on the slice it binds to). Times are absolute
 * nanoseconds on Perfetto's default clock, every packet on one sequence, names written out (no interning). The
 * shifts of the ranks go to the trace's attributes. A slice's arguments stay in the JSON merge.
 *
 * <p>A rank's events are held compactly (six numbers per event) until the rank is written: memory is the largest
 * rank's events, not the job's.
 */
final class MergedPftrace implements MergeCommand.Sink {

    private static final int SEQUENCE = 1;

    private final OutputStream out;
    private final long baseNanos;
    private long nextUuid = 1;
    private final Map<Long, Long> processUuids = new HashMap<>();

    // the rank being read
    private final Map<String, Integer> trackIndex = new LinkedHashMap<>();
    private final List<ThreadTrack> tracks = new ArrayList<>();
    private final Map<Long, String> processNames = new HashMap<>();
    private final Map<Long, String> processTexts = new HashMap<>();
    private final Map<String, String> threadNames = new HashMap<>();
    private final Map<String, Integer> names = new HashMap<>();
    private final List<String> nameList = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Counter> counters = new ArrayList<>();

    /** One slice, instant or flow end point of the rank: its track, times in ns, name, category; flow id or 0. */
    private record Event(int track, long start, long end, int name, int category, char ph, long flow) {
    }

    /** A thread of the rank: its key as the JSON writes it ({@code pid/tid}), its tid's text, both as numbers. */
    private record ThreadTrack(String key, String tidText, long pid, long tid) {
    }

    /** One counter value: the counter's name (the event's name and the argument's), its time and value. */
    private record Counter(long pid, String name, long time, double value) {
    }

    /**
     * @param out the file; packets are written as the ranks end, not closed here
     * @param baseNanos what the events' {@code ts} (microseconds) count from, in nanoseconds since the epoch
     * @param attributes the trace's attributes (the merge's shifts), written first
     */
    MergedPftrace(OutputStream out, long baseNanos, Map<String, String> attributes) throws IOException {
        this.out = out;
        this.baseNanos = baseNanos;
        TraceAttributes.Builder a = TraceAttributes.newBuilder();
        attributes.forEach((k, v) -> a.addAttribute(TraceAttributes.Attribute.newBuilder().setKey(k)
                .setStringValue(v)));
        write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTraceAttributes(a));
    }

    /** Takes one event of the rank being read, as merge wrote it for the JSON. */
    @Override
    public void event(ObjectNode e) {
        String ph = e.path("ph").asText();
        String pid = e.path("pid").asText();
        String tid = e.path("tid").asText();
        switch (ph) {
            case "M" -> {
                String name = e.path("args").path("name").asText(null);
                if (name != null && e.path("name").asText().equals("process_name")) {
                    processNames.put(pidNumber(pid), name);
                } else if (name != null && e.path("name").asText().equals("thread_name")) {
                    threadNames.put(pid + "/" + tid, name);
                }
            }
            case "X", "i", "I", "s", "f", "t" -> {
                long start = nanos(e.get("ts"));
                long end = ph.equals("X") ? start + Math.max(0, nanos(e.get("dur")) - baseNanos) : start;
                long flow = ph.equals("X") || ph.equals("i") || ph.equals("I") ? 0 : flowId(e);
                events.add(new Event(track(pid, tid), start, end, name(e.path("name").asText()),
                        name(e.path("cat").asText()), ph.charAt(0), flow));
            }
            case "C" -> {
                long time = nanos(e.get("ts"));
                e.path("args").fields().forEachRemaining(f -> {
                    if (f.getValue().isNumber()) {
                        counters.add(new Counter(pidNumber(pid), e.path("name").asText() + " " + f.getKey(), time,
                                f.getValue().asDouble()));
                    }
                });
            }
            default -> {
                // other phases (async events, marks) are the JSON merge's only
            }
        }
    }

    /** Writes the rank read since the last call, and forgets it. */
    @Override
    public void rankDone() throws IOException {
        // descriptors: each process once in the file, each thread of the rank
        long[] uuids = new long[tracks.size()];
        for (int t = 0; t < tracks.size(); t++) {
            ThreadTrack track = tracks.get(t);
            long process = process(track.pid());
            uuids[t] = nextUuid++;
            ThreadDescriptor.Builder th = ThreadDescriptor.newBuilder().setPid((int) track.pid()).setTid(track.tid());
            th.setThreadName(threadNames.getOrDefault(track.key(), track.tidText()));
            write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTrackDescriptor(
                    TrackDescriptor.newBuilder().setUuid(uuids[t]).setParentUuid(process).setThread(th)));
        }
        writeSlices(uuids);
        writeCounters();
        trackIndex.clear();
        tracks.clear();
        processNames.clear();
        processTexts.clear();
        threadNames.clear();
        names.clear();
        nameList.clear();
        events.clear();
        counters.clear();
    }

    /** The uuid of a process's track, its descriptor written the first time. */
    private long process(long pid) throws IOException {
        Long uuid = processUuids.get(pid);
        if (uuid == null) {
            uuid = nextUuid++;
            processUuids.put(pid, uuid);
            ProcessDescriptor.Builder p = ProcessDescriptor.newBuilder().setPid((int) pid);
            String name = processNames.get(pid);
            if (name != null || processTexts.containsKey(pid)) {
                // a process the JSON names by text (Kineto's "Spans" of a legacy trace) keeps that text
                p.setProcessName(name != null ? name : processTexts.get(pid));
            }
            write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE)
                    .setTrackDescriptor(TrackDescriptor.newBuilder().setUuid(uuid).setProcess(p)));
        }
        return uuid;
    }

    /** Each track's slices by start, the longer first, opened and closed as they nest; flows on their slices. */
    private void writeSlices(long[] uuids) throws IOException {
        List<List<Event>> byTrack = new ArrayList<>();
        for (int t = 0; t < uuids.length; t++) {
            byTrack.add(new ArrayList<>());
        }
        events.forEach(e -> byTrack.get(e.track()).add(e));
        for (int t = 0; t < uuids.length; t++) {
            List<Event> slices = new ArrayList<>();
            List<Event> flows = new ArrayList<>();
            for (Event e : byTrack.get(t)) {
                (e.ph() == 's' || e.ph() == 'f' || e.ph() == 't' ? flows : slices).add(e);
            }
            slices.sort((a, b) -> a.start() != b.start() ? Long.compare(a.start(), b.start())
                    : Long.compare(b.end(), a.end()));
            // the flows each slice carries: a start or step on the innermost slice enclosing it, an end too
            Map<Integer, List<Long>> starts = new HashMap<>();
            Map<Integer, List<Long>> ends = new HashMap<>();
            long[] sliceStarts = slices.stream().mapToLong(Event::start).toArray();
            for (Event f : flows) {
                int s = enclosing(slices, sliceStarts, f.start());
                if (s >= 0) {
                    (f.ph() == 'f' ? ends : starts).computeIfAbsent(s, x -> new ArrayList<>()).add(f.flow());
                }
            }
            long[] openEnds = new long[16];
            int open = 0;
            for (int i = 0; i < slices.size(); i++) {
                Event e = slices.get(i);
                while (open > 0 && openEnds[open - 1] <= e.start()) {
                    end(uuids[t], openEnds[--open]);
                }
                TrackEvent.Builder te = TrackEvent.newBuilder().setTrackUuid(uuids[t]).setName(nameList.get(e.name()))
                        .addCategories(nameList.get(e.category()));
                starts.getOrDefault(i, List.of()).forEach(te::addFlowIds);
                ends.getOrDefault(i, List.of()).forEach(te::addTerminatingFlowIds);
                if (e.ph() == 'X') {
                    write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTimestamp(e.start())
                            .setTrackEvent(te.setType(TrackEvent.Type.TYPE_SLICE_BEGIN)));
                    if (open == openEnds.length) {
                        openEnds = Arrays.copyOf(openEnds, open * 2);
                    }
                    openEnds[open++] = e.end();
                } else {
                    write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTimestamp(e.start())
                            .setTrackEvent(te.setType(TrackEvent.Type.TYPE_INSTANT)));
                }
            }
            while (open > 0) {
                end(uuids[t], openEnds[--open]);
            }
        }
    }

    /** The innermost slice (the latest to start) that holds an instant, or -1. */
    private static int enclosing(List<Event> slices, long[] starts, long at) {
        int i = Arrays.binarySearch(starts, at);
        if (i < 0) {
            i = -i - 2;
        } else {
            // the last slice starting at that instant: the innermost of those that start together
            while (i + 1 < starts.length && starts[i + 1] == at) {
                i++;
            }
        }
        for (; i >= 0; i--) {
            Event s = slices.get(i);
            if (s.ph() == 'X' && s.end() >= at) {
                return i;
            }
        }
        return -1;
    }

    private void end(long uuid, long at) throws IOException {
        write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTimestamp(at).setTrackEvent(
                TrackEvent.newBuilder().setTrackUuid(uuid).setType(TrackEvent.Type.TYPE_SLICE_END)));
    }

    /** Each counter a track of its process, its values in time order. */
    private void writeCounters() throws IOException {
        Map<String, Long> tracks = new HashMap<>();
        counters.sort((a, b) -> Long.compare(a.time(), b.time()));
        for (Counter c : counters) {
            String key = c.pid() + "/" + c.name();
            Long uuid = tracks.get(key);
            if (uuid == null) {
                uuid = nextUuid++;
                tracks.put(key, uuid);
                TrackDescriptor.Builder d = TrackDescriptor.newBuilder().setUuid(uuid).setName(c.name())
                        .setCounter(CounterDescriptor.newBuilder()).setParentUuid(process(c.pid()));
                write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTrackDescriptor(d));
            }
            write(TracePacket.newBuilder().setTrustedPacketSequenceId(SEQUENCE).setTimestamp(c.time()).setTrackEvent(
                    TrackEvent.newBuilder().setTrackUuid(uuid).setType(TrackEvent.Type.TYPE_COUNTER)
                            .setDoubleCounterValue(c.value())));
        }
    }

    private int track(String pid, String tid) {
        String key = pid + "/" + tid;
        Integer t = trackIndex.get(key);
        if (t == null) {
            t = tracks.size();
            trackIndex.put(key, t);
            tracks.add(new ThreadTrack(key, tid, pidNumber(pid), number(tid)));
        }
        return t;
    }

    /** A pid as Perfetto's 32-bit number: merge's numbers as they are, a name's hash kept apart from them. */
    private long pidNumber(String pid) {
        try {
            return Long.parseLong(pid);
        } catch (NumberFormatException e) {
            long n = (pid.hashCode() & 0x3fffffff) | 0x40000000L;
            processTexts.put(n, pid);
            return n;
        }
    }

    /** A tid as a number: as it is, or a name's hash. */
    private static long number(String tid) {
        try {
            return Long.parseLong(tid);
        } catch (NumberFormatException e) {
            return tid.hashCode() & 0xffffffffL;
        }
    }

    private int name(String text) {
        Integer id = names.get(text);
        if (id == null) {
            id = nameList.size();
            names.put(text, id);
            nameList.add(text);
        }
        return id;
    }

    /** Microseconds from the base as absolute nanoseconds. */
    private long nanos(JsonNode ts) {
        if (ts == null || !ts.isNumber()) {
            return baseNanos;
        }
        return baseNanos + ts.decimalValue().movePointRight(3).setScale(0, java.math.RoundingMode.HALF_EVEN)
                .longValueExact();
    }

    /** A flow's id (merge made them unique over the ranks), its category folded in so two kinds never join. */
    private static long flowId(ObjectNode e) {
        JsonNode id = e.get("id");
        long n = id == null ? 0 : id.isNumber() ? id.asLong() : id.asText().hashCode();
        return n * 31 + e.path("cat").asText().hashCode();
    }

    private void write(TracePacket.Builder packet) throws IOException {
        byte[] bytes = packet.build().toByteArray();
        // Trace.packet, field 1, length-delimited
        CodedOutputStream c = CodedOutputStream.newInstance(out, 16);
        c.writeTag(1, com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED);
        c.writeUInt32NoTag(bytes.length);
        c.flush();
        out.write(bytes);
    }
}
