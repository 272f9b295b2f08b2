package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.google.protobuf.CodedOutputStream;

import dev.vantage.perfetto.format.proto.BuiltinClock;
import dev.vantage.perfetto.format.proto.ClockSnapshot;
import dev.vantage.perfetto.format.proto.Trace;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TracePacketDefaults;
import dev.vantage.perfetto.format.proto.TrackDescriptor;
import dev.vantage.perfetto.format.proto.TrackEvent;

/**
 * Where packets go: each one is written as one {@code packet} field of a {@link Trace}, so a file is a valid
 * {@code Trace} message at any packet boundary and nothing but the packet being built is held in memory. Also the
 * trace-wide string table (strings to global ids; each sequence maps those to interning ids of its own) and the
 * sequence ids handed out.
 *
 * <p>Clocks: times are nanoseconds since the Unix epoch, so the first packet makes {@code REALTIME} the trace's
 * clock. Descriptors carry absolute times in it; each slice sequence, and the counters' sequence, has an
 * incremental clock of its own (see {@link Lane}).
 */
final class Packets {

    /** The sequence of descriptors and trace attributes. */
    static final int METADATA_SEQUENCE = 1;
    /** The sequence of counter values: absolute times, so values from any thread may come in any order. */
    static final int COUNTER_SEQUENCE = 2;

    private final CodedOutputStream out;
    private final Map<String, Integer> strings = new HashMap<>();
    private final List<String> byId = new ArrayList<>();
    private int nextSequence = COUNTER_SEQUENCE + 1;
    private long count;
    private final TracePacket.Builder counter = TracePacket.newBuilder();
    private final TrackEvent.Builder counterEvent = TrackEvent.newBuilder();
    private boolean countersOpen;
    private long counterNanos;

    Packets(OutputStream stream, long startEpochNanos) throws IOException {
        this.out = CodedOutputStream.newInstance(stream, 1 << 16);
        write(TracePacket.newBuilder()
                .setTrustedPacketSequenceId(METADATA_SEQUENCE)
                .setClockSnapshot(ClockSnapshot.newBuilder()
                        .setPrimaryTraceClock(BuiltinClock.BUILTIN_CLOCK_REALTIME)
                        .addClocks(ClockSnapshot.Clock.newBuilder()
                                .setClockId(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE)
                                .setTimestamp(startEpochNanos)))
                .build());
    }

    void write(TracePacket packet) throws IOException {
        out.writeMessage(Trace.PACKET_FIELD_NUMBER, packet);
        count++;
    }

    /** A track's descriptor, at the trace's start on the metadata sequence. */
    void descriptor(TrackDescriptor descriptor, long timeEpochNanos) throws IOException {
        write(TracePacket.newBuilder()
                .setTimestamp(timeEpochNanos)
                .setTrustedPacketSequenceId(METADATA_SEQUENCE)
                .setTrackDescriptor(descriptor)
                .build());
    }

    /**
     * A counter's value. The counter sequence has an incremental clock of its own: a value not earlier than the
     * previous one carries the time since it; an earlier one (values of several threads' allocations arrive thread
     * by thread) carries its absolute time in {@code REALTIME}, which leaves the incremental clock where it was.
     */
    void counter(long trackUuid, long timeEpochNanos, double value) throws IOException {
        counterEvent.clear().setType(TrackEvent.Type.TYPE_COUNTER).setTrackUuid(trackUuid);
        if (value == Math.rint(value) && Math.abs(value) < 1e18) {
            counterEvent.setCounterValue((long) value);
        } else {
            counterEvent.setDoubleCounterValue(value);
        }
        if (!countersOpen) {
            write(TracePacket.newBuilder()
                    .setTrustedPacketSequenceId(COUNTER_SEQUENCE)
                    .setSequenceFlags(TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE)
                    .setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(Lane.CLOCK))
                    .setClockSnapshot(Lane.snapshot(timeEpochNanos))
                    .build());
            countersOpen = true;
            counterNanos = timeEpochNanos;
        }
        TracePacket.Builder p = counter.clear()
                .setTrustedPacketSequenceId(COUNTER_SEQUENCE)
                .setSequenceFlags(TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE);
        if (timeEpochNanos >= counterNanos) {
            p.setTimestamp(timeEpochNanos - counterNanos);
            counterNanos = timeEpochNanos;
        } else {
            p.setTimestamp(timeEpochNanos).setTimestampClockId(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE);
        }
        write(p.setTrackEvent(counterEvent.build()).build());
    }

    /** Returns the trace-wide id of a string, 0 for the first one seen. */
    int stringId(String s) {
        Integer id = strings.get(s);
        if (id == null) {
            id = byId.size();
            strings.put(s, id);
            byId.add(s);
        }
        return id;
    }

    String string(int id) {
        return byId.get(id);
    }

    int newSequence() {
        return nextSequence++;
    }

    long packetCount() {
        return count;
    }

    void flush() throws IOException {
        out.flush();
    }
}
