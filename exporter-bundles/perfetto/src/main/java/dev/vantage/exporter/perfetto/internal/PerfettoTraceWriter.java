package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.perfetto.format.proto.CounterDescriptor;
import dev.vantage.perfetto.format.proto.TraceAttributes;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.trace.engine.write.KinetoMetadata;

/**
 * Streams a trace as Perfetto's native protobuf trace, with the event model of the chrome exporter: the same
 * tracks (see {@link Tracks}), one slice per host op, annotation, step, runtime call, kernel, copy and GC pause with
 * the chrome exporter's arguments ({@link EventArgs}), {@code [memory]} instants, and its flows: {@code fwdbwd} from
 * a forward op to the outermost backward op of its pair, {@code ac2g} from a runtime launch to the device work it
 * launched. Perfetto-native on top: counter tracks of each device's allocated and reserved memory (from the memory
 * events' totals) and of each step's time and device time, and the metadata as trace attributes, which Perfetto's
 * Overview page shows, and as arguments of the profiler's span.
 *
 * <p>Two passes over the cursor, memory bounded whatever the number of events: the first finds the tracks, the
 * steps and where each track's events break time order; the second writes them, merging a track's runs with one
 * extra cursor per run (see {@link Track}). Flow ids: {@code fwdbwd} ones are {@link #FWDBWD} plus Kineto's key
 * (forward thread in 16 bits, sequence number in 32), {@code ac2g} ones {@link #AC2G} plus the runtime's
 * correlation id.
 */
final class PerfettoTraceWriter {

    /** The high bits of a {@code fwdbwd} flow id. */
    static final long FWDBWD = 1L << 62;
    /** The high bits of an {@code ac2g} flow id. */
    static final long AC2G = 2L << 62;
    private static final long FLOW_MASK = (1L << 62) - 1;

    private final Trace trace;
    private final Packets packets;
    private final Lane.Scratch scratch = new Lane.Scratch();
    private final Tracks tracks;
    private final EventArgs args;
    private final int[] categories = new int[EventKind.values().length];
    private final int memoryName;
    private final int oomName;
    /** The steps; which one an event belongs to, the cursor says. */
    private final List<TraceStep> steps;
    private final Map<String, long[]> memoryCounters = new LinkedHashMap<>();
    private final Map<String, double[]> stepDeviceNanos = new TreeMap<>();
    private long unplaced;

    private PerfettoTraceWriter(Trace trace, OutputStream out) throws IOException {
        this.trace = trace;
        this.steps = trace.steps();
        this.packets = new Packets(out, trace.startEpochNanos());
        this.tracks = new Tracks(trace, packets, scratch);
        this.args = new EventArgs(packets);
        for (EventKind k : EventKind.values()) {
            categories[k.ordinal()] = packets.stringId(k.category());
        }
        memoryName = packets.stringId("[memory]");
        oomName = packets.stringId("[OutOfMemory]");
    }

    /** Writes {@code trace} to {@code out}, which is flushed but not closed. */
    static void write(Trace trace, OutputStream out) throws IOException {
        new PerfettoTraceWriter(trace, out).write();
    }

    private void write() throws IOException {
        Map<String, String> attributes = attributes();
        TraceAttributes.Builder a = TraceAttributes.newBuilder();
        attributes.forEach((k, v) -> a.addAttribute(TraceAttributes.Attribute.newBuilder().setKey(k)
                .setStringValue(v)));
        a.addAttribute(TraceAttributes.Attribute.newBuilder().setKey("dropped_events")
                .setLongValue(trace.droppedEvents()));
        packets.write(TracePacket.newBuilder().setTrustedPacketSequenceId(Packets.METADATA_SEQUENCE)
                .setTraceAttributes(a).build());
        tracks.declareHost();
        findRuns();
        Track span = tracks.custom("PyTorch Profiler");
        long start = trace.startEpochNanos();
        long end = Math.max(start, trace.endEpochNanos());
        spanBegin(span, start, end, attributes);
        EventCursor c = trace.events();
        while (c.next()) {
            EventKind kind = c.kind();
            Track t = tracks.of(c, kind);
            if (!t.merged()) {
                event(c, kind, t);
            }
        }
        for (Track t : tracks.all()) {
            if (t.merged()) {
                merge(t);
            }
        }
        for (Track t : tracks.all()) {
            t.close();
        }
        Lane lane = span.place(end, end);
        scratch.newEvent().setNameIid(lane.name(packets.stringId("Record Window End")));
        lane.instant(end);
        stepCounters();
        if (unplaced > 0) {
            packets.write(TracePacket.newBuilder().setTrustedPacketSequenceId(Packets.METADATA_SEQUENCE)
                    .setTraceAttributes(TraceAttributes.newBuilder().addAttribute(TraceAttributes.Attribute
                            .newBuilder().setKey("vantage.perfetto.unplaced_events").setLongValue(unplaced)))
                    .build());
        }
        packets.flush();
    }

    /** First pass: each track's runs. */
    private void findRuns() {
        EventCursor c = trace.events();
        long index = 0;
        while (c.next()) {
            tracks.of(c, c.kind()).observe(index++, c.startEpochNanos());
        }
    }

    /** Writes one track's events in time order: one cursor per run, the earliest (longest on a tie) first. */
    private void merge(Track t) throws IOException {
        int runs = t.runs();
        EventCursor[] cursors = new EventCursor[runs];
        long[] at = new long[runs];
        for (int r = 0; r < runs; r++) {
            EventCursor c = trace.events();
            for (long i = 0; i <= t.runFirst(r); i++) {
                c.next();
            }
            cursors[r] = c;
            at[r] = t.runFirst(r);
        }
        while (true) {
            int best = -1;
            for (int r = 0; r < runs; r++) {
                if (cursors[r] == null) {
                    continue;
                }
                if (best < 0 || before(cursors[r], cursors[best])) {
                    best = r;
                }
            }
            if (best < 0) {
                return;
            }
            EventCursor c = cursors[best];
            event(c, c.kind(), t);
            // on to the run's next event of this track, or the run's end
            boolean found = false;
            while (at[best] < t.runLast(best) && c.next()) {
                at[best]++;
                if (tracks.of(c, c.kind()) == t) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                cursors[best] = null;
            }
        }
    }

    private static boolean before(EventCursor a, EventCursor b) {
        long sa = a.startEpochNanos();
        long sb = b.startEpochNanos();
        return sa != sb ? sa < sb : a.durationNanos() > b.durationNanos();
    }

    private void event(EventCursor c, EventKind kind, Track t) throws IOException {
        long start = c.startEpochNanos();
        if (kind == EventKind.MEMORY || kind == EventKind.OUT_OF_MEMORY) {
            memory(c, kind == EventKind.OUT_OF_MEMORY, t, start);
            return;
        }
        long duration = c.durationNanos();
        Lane lane = t.place(start, start + duration);
        if (lane == null) {
            unplaced++;
            return;
        }
        TrackEvent.Builder e = scratch.newEvent();
        e.setNameIid(lane.name(packets.stringId(c.name()))).addCategoryIids(lane.category(categories[kind.ordinal()]));
        args.slice(c, kind, lane, e);
        if (kind == EventKind.CPU_OP && c.sequenceNumber() >= 0) {
            if (c.forwardThreadId() < 0) {
                e.addFlowIds(FWDBWD | flowKey(c.threadId(), c.sequenceNumber()));
            } else {
                // a backward function runs inside its engine frame, both carrying the pair: only the outer one
                // ends the flow, as in the chrome exporter
                long key = flowKey(c.forwardThreadId(), c.sequenceNumber());
                if (key != t.lastBackwardKey || start >= t.lastBackwardEnd) {
                    e.addTerminatingFlowIds(FWDBWD | key);
                    t.lastBackwardKey = key;
                    t.lastBackwardEnd = start + duration;
                }
            }
        } else if (c.flowId() >= 0 && (kind == EventKind.RUNTIME || kind.isDeviceWork())) {
            long id = AC2G | c.flowId() & FLOW_MASK;
            if (kind == EventKind.RUNTIME) {
                e.addFlowIds(id);
            } else {
                e.addTerminatingFlowIds(id);
            }
        }
        lane.begin(start, start + duration);
        if (kind.isDeviceWork() && !steps.isEmpty()) {
            int s = c.stepIndex();
            if (s >= 0) {
                stepDeviceNanos.computeIfAbsent(deviceLabel(c.deviceType(), c.deviceIndex()),
                        k -> new double[steps.size()])[s] += duration;
            }
        }
    }

    /** Kineto's forward/backward key: forward thread in 16 bits, sequence number in 32. */
    static long flowKey(long thread, long seq) {
        return (thread & 0xFFFF) << 32 | seq & 0xFFFF_FFFFL;
    }

    private void memory(EventCursor c, boolean oom, Track t, long time) throws IOException {
        Lane lane = t.place(time, time);
        if (lane == null) {
            unplaced++;
            return;
        }
        TrackEvent.Builder e = scratch.newEvent();
        e.setNameIid(lane.name(oom ? oomName : memoryName))
                .addCategoryIids(lane.category(categories[c.kind().ordinal()]));
        args.memory(c, oom, lane, e);
        lane.instant(time);
        if (!oom) {
            String device = deviceLabel(c.deviceType(), c.deviceIndex());
            long[] counters = memoryCounters.get(device);
            if (counters == null) {
                CounterDescriptor bytes = CounterDescriptor.newBuilder()
                        .setUnit(CounterDescriptor.Unit.UNIT_SIZE_BYTES).build();
                counters = new long[] {
                    tracks.counter(device + " memory allocated", bytes).getUuid(),
                    tracks.counter(device + " memory reserved", bytes).getUuid()};
                memoryCounters.put(device, counters);
            }
            packets.counter(counters[0], time, c.memoryTotalAllocated());
            packets.counter(counters[1], time, c.memoryTotalReserved());
        }
    }

    private static String deviceLabel(String type, int index) {
        String label = type.isEmpty() ? "CPU" : type.toUpperCase(Locale.ROOT);
        return index >= 0 ? label + " " + index : label;
    }

    /**
     * The counters of each step ({@link Trace#steps()}): its time ({@link TraceStep#durationNanos()}), and per device
     * the time of the device work {@link StepRule} attributes to it, as every view of a run reports them.
     */
    private void stepCounters() throws IOException {
        if (steps.isEmpty()) {
            return;
        }
        CounterDescriptor ms = CounterDescriptor.newBuilder().setUnitName("ms").build();
        long stepTime = tracks.counter("Step time", ms).getUuid();
        for (TraceStep s : steps) {
            packets.counter(stepTime, s.startEpochNanos(), s.durationNanos() / 1e6);
        }
        for (Map.Entry<String, double[]> d : stepDeviceNanos.entrySet()) {
            long uuid = tracks.counter(d.getKey() + " device time per step", ms).getUuid();
            for (int i = 0; i < steps.size(); i++) {
                packets.counter(uuid, steps.get(i).startEpochNanos(), d.getValue()[i] / 1e6);
            }
        }
    }

    /**
     * The profiler's span as the chrome exporter draws it ({@code PyTorch Profiler (0)} over the whole window, an
     * {@code Iteration Start} instant), on a track of its own, with the metadata as its arguments.
     */
    private void spanBegin(Track span, long start, long end, Map<String, String> attributes) throws IOException {
        Lane lane = span.place(start, end);
        TrackEvent.Builder e = scratch.newEvent();
        e.setNameIid(lane.name(packets.stringId("PyTorch Profiler (0)")))
                .addCategoryIids(lane.category(packets.stringId("Trace")));
        args.integer(lane, e, packets.stringId("Op count"), 0);
        attributes.forEach((k, v) -> args.string(lane, e, packets.stringId(k), v));
        args.integer(lane, e, packets.stringId("dropped_events"), trace.droppedEvents());
        lane.begin(start, end);
        scratch.newEvent().setNameIid(lane.name(packets.stringId("Iteration Start: PyTorch Profiler")));
        lane.accepts(start, start);
        lane.instant(start);
    }

    /**
     * The trace's metadata as the chrome exporter writes it at the top of its JSON (with {@code rank},
     * {@code world_size} and {@code distributed_backend} folded into {@code distributedInfo}), plus
     * {@code deviceProperties} as JSON text and {@code emulated_devices}.
     */
    private Map<String, String> attributes() {
        Map<String, String> metadata = trace.metadata();
        Map<String, String> a = new TreeMap<>();
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            String k = e.getKey();
            if (!k.equals("rank") && !k.equals("world_size") && !k.equals("distributed_backend")) {
                a.put(k, e.getValue());
            }
        }
        a.put("distributedInfo", KinetoMetadata.distributedInfo(metadata));
        a.put("deviceProperties", KinetoMetadata.deviceProperties(trace.devices()));
        List<String> emulated = tracks.emulatedDevices();
        a.put("emulated_devices", emulated.isEmpty() ? "none" : String.join(",", emulated));
        for (TraceDevice d : trace.devices()) {
            if (d.emulated()) {
                a.put("emulated." + d.type() + ":" + d.index(), d.type().toUpperCase(Locale.ROOT) + " " + d.index()
                        + " is emulated in software, not real hardware");
            }
        }
        return a;
    }
}
