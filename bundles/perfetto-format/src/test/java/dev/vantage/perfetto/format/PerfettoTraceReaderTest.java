package dev.vantage.perfetto.format;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import org.junit.Test;

import com.google.protobuf.ByteString;

import dev.vantage.perfetto.format.proto.BuiltinClock;
import dev.vantage.perfetto.format.proto.ClockSnapshot;
import dev.vantage.perfetto.format.proto.DebugAnnotation;
import dev.vantage.perfetto.format.proto.DebugAnnotationName;
import dev.vantage.perfetto.format.proto.EventName;
import dev.vantage.perfetto.format.proto.InternedData;
import dev.vantage.perfetto.format.proto.InternedString;
import dev.vantage.perfetto.format.proto.ThreadDescriptor;
import dev.vantage.perfetto.format.proto.Trace;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TracePacketDefaults;
import dev.vantage.perfetto.format.proto.TrackDescriptor;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.perfetto.format.proto.TrackEventDefaults;

/**
 * The reader on packets built by hand with the generated classes, the way Perfetto's documentation describes
 * them: interning, sequence defaults, an incremental clock, begin/end pairing, flows, and what it reports.
 */
public class PerfettoTraceReaderTest {

    private static final int SEQ = 7;
    private static final int NEEDS = TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE;

    private static TracePacket.Builder event(long delta, TrackEvent.Builder e) {
        return TracePacket.newBuilder().setTimestamp(delta).setTrustedPacketSequenceId(SEQ).setSequenceFlags(NEEDS)
                .setTrackEvent(e);
    }

    private static byte[] trace(boolean clearFirst) {
        Trace.Builder t = Trace.newBuilder();
        t.addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(1).setTrackDescriptor(TrackDescriptor
                .newBuilder().setUuid(10).setThread(ThreadDescriptor.newBuilder().setPid(1).setTid(2)
                        .setThreadName("main"))));
        TracePacket.Builder open = TracePacket.newBuilder().setTrustedPacketSequenceId(SEQ)
                .setTracePacketDefaults(TracePacketDefaults.newBuilder().setTimestampClockId(64)
                        .setTrackEventDefaults(TrackEventDefaults.newBuilder().setTrackUuid(10)))
                .setClockSnapshot(ClockSnapshot.newBuilder()
                        .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(64).setTimestamp(1000)
                                .setIsIncremental(true))
                        .addClocks(ClockSnapshot.Clock.newBuilder().setClockId(6).setTimestamp(5000)));
        if (clearFirst) {
            open.setSequenceFlags(TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE);
        }
        t.addPacket(open);
        t.addPacket(event(0, TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setNameIid(1)
                .addFlowIds(99).setCorrelationId(42)
                .addDebugAnnotations(DebugAnnotation.newBuilder().setNameIid(1).setStringValueIid(1))
                .addDebugAnnotations(DebugAnnotation.newBuilder().setName("n").setIntValue(-3)))
                .setInternedData(InternedData.newBuilder()
                        .addEventNames(EventName.newBuilder().setIid(1).setName("outer"))
                        .addDebugAnnotationNames(DebugAnnotationName.newBuilder().setIid(1).setName("shape"))
                        .addDebugAnnotationStringValues(InternedString.newBuilder().setIid(1)
                                .setStr(ByteString.copyFromUtf8("[[8, 16]]")))));
        t.addPacket(event(10, TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setNameIid(1)));
        t.addPacket(event(5, TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END)));
        t.addPacket(event(5, TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT).setName("mark")
                .addTerminatingFlowIds(99)));
        t.addPacket(event(80, TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END)));
        return t.build().toByteArray();
    }

    @Test
    public void resolvesInterningDefaultsIncrementalTimeNestingAndFlows() throws IOException {
        PerfettoTrace t = PerfettoTraceReader.read(new ByteArrayInputStream(trace(true)));
        assertEquals(List.of(), t.problems());
        assertEquals(3, t.slices().size());
        PerfettoTrace.Slice outer = t.slices().get(0);
        // the sequence clock at 1000 is BOOTTIME 5000: each delta adds to the previous packet's time
        assertEquals(5000, outer.startNanos());
        assertEquals(100, outer.durationNanos());
        assertEquals("outer", outer.name());
        assertEquals(42, outer.correlationId());
        assertEquals(Map.of("shape", "[[8, 16]]", "n", -3L), outer.args());
        PerfettoTrace.Slice inner = t.slices().get(1);
        assertEquals(5010, inner.startNanos());
        assertEquals(5, inner.durationNanos());
        assertEquals(0, inner.parent());
        PerfettoTrace.Slice mark = t.slices().get(2);
        assertTrue(mark.instant());
        assertEquals(1, mark.depth());
        assertEquals(List.of(new PerfettoTrace.Flow(99, 0, 2)), t.flows());
        assertEquals("main", t.track(10).name());
    }

    @Test
    public void readsGzipAndSkipsPacketsOfASequenceNeverCleared() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(bytes)) {
            z.write(trace(false));
        }
        PerfettoTrace t = PerfettoTraceReader.read(new ByteArrayInputStream(bytes.toByteArray()));
        assertEquals(0, t.slices().size());
        assertEquals(5, t.problems().size());
        assertTrue(t.problems().get(0), t.problems().get(0).contains("never cleared"));
        assertEquals(BuiltinClock.BUILTIN_CLOCK_BOOTTIME, BuiltinClock.forNumber(6));
    }

    /** Records what {@link PerfettoTraceReader#stream} hands over, in order, as words. */
    private static final class Recorder implements PerfettoEvents {
        final List<String> seen = new java.util.ArrayList<>();

        @Override
        public void track(PerfettoTrace.Track track) {
            seen.add("track " + track.uuid());
        }

        @Override
        public void attribute(String key, String value) {
            seen.add("attribute " + key);
        }

        @Override
        public void event(PerfettoEvent event) {
            seen.add(event.type() + " " + event.timestampNanos());
        }

        @Override
        public void problem(String what) {
            seen.add("problem");
        }

        @Override
        public void damagedPacket(long offset) {
            seen.add("damaged " + offset);
        }

        @Override
        public void cutOff(long offset) {
            seen.add("cut " + offset);
        }

        @Override
        public void unreadable(long offset, String why) {
            seen.add("unreadable " + offset);
        }
    }

    @Test
    public void streamsEventsInFileOrderAndNamesWhereAFileIsCut() throws IOException {
        byte[] whole = trace(true);
        Recorder all = new Recorder();
        assertEquals(7, PerfettoTraceReader.stream(new ByteArrayInputStream(whole), all));
        assertEquals(List.of("track 10", "SLICE_BEGIN 5000", "SLICE_BEGIN 5010", "SLICE_END 5015", "INSTANT 5020",
                "SLICE_END 5100"), all.seen);
        // the last packet is 2 bytes of framing and its body; cut inside its body
        Trace t = Trace.parseFrom(whole);
        int last = whole.length - t.getPacket(t.getPacketCount() - 1).getSerializedSize() - 2;
        Recorder cut = new Recorder();
        PerfettoTraceReader.stream(new ByteArrayInputStream(java.util.Arrays.copyOf(whole, whole.length - 1)), cut);
        assertEquals("cut " + last, cut.seen.get(cut.seen.size() - 1));
        IOException e = org.junit.Assert.assertThrows(IOException.class, () -> PerfettoTraceReader.read(
                new ByteArrayInputStream(java.util.Arrays.copyOf(whole, whole.length - 1))));
        assertEquals("damaged at byte " + last + ": the file ends inside a packet", e.getMessage());
    }

    @Test
    public void aGzipHeaderThatDoesNotReadIsUnreadableAtByteZero() throws IOException {
        // gzip's magic bytes and a compression method other than deflate: before, GZIPInputStream's ZipException
        // escaped naming neither the file nor the offset
        byte[] bytes = {0x1f, (byte) 0x8b, 9, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3};
        Recorder r = new Recorder();
        assertEquals(0, PerfettoTraceReader.stream(new ByteArrayInputStream(bytes), r));
        assertEquals(List.of("unreadable 0"), r.seen);
        IOException e = org.junit.Assert.assertThrows(IOException.class,
                () -> PerfettoTraceReader.read(new ByteArrayInputStream(bytes)));
        assertTrue(e.getMessage(), e.getMessage().startsWith("damaged at byte 0: it starts as gzip but its gzip"
                + " header does not read ("));
    }
}
