package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.util.Arrays;

import com.google.protobuf.ByteString;

import dev.vantage.perfetto.format.proto.BuiltinClock;
import dev.vantage.perfetto.format.proto.ClockSnapshot;
import dev.vantage.perfetto.format.proto.DebugAnnotationName;
import dev.vantage.perfetto.format.proto.EventCategory;
import dev.vantage.perfetto.format.proto.EventName;
import dev.vantage.perfetto.format.proto.InternedData;
import dev.vantage.perfetto.format.proto.InternedString;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TracePacketDefaults;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.perfetto.format.proto.TrackEventDefaults;

/**
 * One track's slices as one packet sequence: what Perfetto needs to draw them as written. Slices on a lane nest
 * properly (each ends no later than the slice it starts in), so begin and end events pair up; a slice that would
 * overlap another partly goes to another lane. Packets of a lane are in time order, which lets each carry the time
 * since the previous one: the sequence's first packet clears its incremental state, sets its defaults (its own
 * incremental clock, id 64, and its track) and relates that clock to {@code REALTIME}; later packets say they
 * need that state. Names, categories, annotation names and string values are interned per sequence: the first
 * use carries the string, later ones its id.
 *
 * <p>Not thread-safe; one writer owns it.
 */
final class Lane {

    /** Perfetto's first sequence-scoped clock id. */
    static final int CLOCK = 64;
    private static final int NEEDS_STATE = TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE;
    private static final int CLEARED = TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE;
    private static final TrackEvent END = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END).build();

    /** The builders every lane of one writer fills in turn, so that a packet allocates only its messages. */
    static final class Scratch {
        final TracePacket.Builder packet = TracePacket.newBuilder();
        final TrackEvent.Builder event = TrackEvent.newBuilder();
        final InternedData.Builder interned = InternedData.newBuilder();
        boolean hasInterned;

        /** Clears the event and interned data for the next packet. */
        TrackEvent.Builder newEvent() {
            interned.clear();
            hasInterned = false;
            return event.clear();
        }
    }

    final long uuid;
    private final int sequence;
    private final Packets packets;
    private final Scratch scratch;
    private boolean open;
    private long lastNanos;
    private long[] ends = new long[16];
    private int depth;
    private int[] names = new int[0];
    private int[] categories = new int[0];
    private int[] annotationNames = new int[0];
    private int[] strings = new int[0];
    private int nextName = 1;
    private int nextCategory = 1;
    private int nextAnnotationName = 1;
    private int nextString = 1;

    Lane(long uuid, Packets packets, Scratch scratch) {
        this.uuid = uuid;
        this.sequence = packets.newSequence();
        this.packets = packets;
        this.scratch = scratch;
    }

    /**
     * Returns whether a slice from {@code start} to {@code end} can go here: it is not earlier than what the lane
     * wrote, and nests in the slice open at its start. Ends every slice over by {@code start} first.
     */
    boolean accepts(long start, long end) throws IOException {
        if (open && start < lastNanos) {
            return false;
        }
        closeUntil(start);
        return depth == 0 || end <= ends[depth - 1];
    }

    /** Ends, in order, every open slice that is over by {@code time}. */
    void closeUntil(long time) throws IOException {
        while (depth > 0 && ends[depth - 1] <= time) {
            writeEnd(ends[--depth]);
        }
    }

    /** Ends every open slice. */
    void closeAll() throws IOException {
        while (depth > 0) {
            writeEnd(ends[--depth]);
        }
    }

    /** Writes the scratch event (a begin) at {@code start} and keeps the slice open until {@code end}. */
    void begin(long start, long end) throws IOException {
        write(start, scratch.event.setType(TrackEvent.Type.TYPE_SLICE_BEGIN).build());
        if (depth == ends.length) {
            ends = Arrays.copyOf(ends, depth * 2);
        }
        ends[depth++] = end;
    }

    /** Writes the scratch event as an instant at {@code time}. */
    void instant(long time) throws IOException {
        write(time, scratch.event.setType(TrackEvent.Type.TYPE_INSTANT).build());
    }

    private void writeEnd(long time) throws IOException {
        write(time, END);
    }

    private void write(long time, TrackEvent event) throws IOException {
        TracePacket.Builder p = scratch.packet.clear();
        if (!open) {
            openSequence(time);
        }
        p.setTimestamp(time - lastNanos)
                .setTrustedPacketSequenceId(sequence)
                .setSequenceFlags(NEEDS_STATE)
                .setTrackEvent(event);
        if (scratch.hasInterned && event != END) {
            p.setInternedData(scratch.interned.build());
        }
        packets.write(p.build());
        lastNanos = time;
    }

    private void openSequence(long time) throws IOException {
        packets.write(TracePacket.newBuilder()
                .setTrustedPacketSequenceId(sequence)
                .setSequenceFlags(CLEARED)
                .setTracePacketDefaults(TracePacketDefaults.newBuilder()
                        .setTimestampClockId(CLOCK)
                        .setTrackEventDefaults(TrackEventDefaults.newBuilder().setTrackUuid(uuid)))
                .setClockSnapshot(snapshot(time))
                .build());
        open = true;
        lastNanos = time;
    }

    /** Ties a sequence's incremental clock to {@code REALTIME} at {@code time}. */
    static ClockSnapshot snapshot(long time) {
        return ClockSnapshot.newBuilder()
                .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(CLOCK).setTimestamp(time).setIsIncremental(true))
                .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE)
                        .setTimestamp(time))
                .build();
    }

    /** Returns the interning id of an event name (a trace-wide string id), adding it to the packet if new here. */
    long name(int id) {
        names = grow(names, id);
        if (names[id] == 0) {
            names[id] = nextName++;
            scratch.interned.addEventNames(EventName.newBuilder().setIid(names[id]).setName(packets.string(id)));
            scratch.hasInterned = true;
        }
        return names[id];
    }

    long category(int id) {
        categories = grow(categories, id);
        if (categories[id] == 0) {
            categories[id] = nextCategory++;
            scratch.interned.addEventCategories(EventCategory.newBuilder().setIid(categories[id])
                    .setName(packets.string(id)));
            scratch.hasInterned = true;
        }
        return categories[id];
    }

    long annotationName(int id) {
        annotationNames = grow(annotationNames, id);
        if (annotationNames[id] == 0) {
            annotationNames[id] = nextAnnotationName++;
            scratch.interned.addDebugAnnotationNames(DebugAnnotationName.newBuilder()
                    .setIid(annotationNames[id]).setName(packets.string(id)));
            scratch.hasInterned = true;
        }
        return annotationNames[id];
    }

    long string(int id) {
        strings = grow(strings, id);
        if (strings[id] == 0) {
            strings[id] = nextString++;
            scratch.interned.addDebugAnnotationStringValues(InternedString.newBuilder().setIid(strings[id])
                    .setStr(ByteString.copyFromUtf8(packets.string(id))));
            scratch.hasInterned = true;
        }
        return strings[id];
    }

    private static int[] grow(int[] table, int id) {
        return id < table.length ? table : Arrays.copyOf(table, Math.max(id + 1, table.length * 2));
    }
}
