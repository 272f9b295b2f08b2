package dev.vantage.exporter.perfetto.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.WireFormat;

import dev.vantage.exporter.contract.TraceExporterContract;
import dev.vantage.perfetto.format.proto.Trace;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * The exporter contract for {@code perfetto}. The file is read back packet by packet with the generated classes
 * (streaming, so that the million-event trace fits the test's small heap): every begin has its end on its
 * sequence, every sequence is cleared before it relies on its state, and the trace's events are the begins and
 * instants off the profiler's span track.
 */
public class PerfettoContractTest extends TraceExporterContract {

    @Override
    protected TraceExporter exporter() {
        return new PerfettoTraceExporter();
    }

    @Override
    protected long readBack(Path target) throws IOException {
        Map<Integer, Long> defaultTrack = new HashMap<>();
        Map<Integer, Long> open = new HashMap<>();
        Set<Integer> cleared = new HashSet<>();
        long spanTrack = -1;
        long events = 0;
        long spanEvents = 0;
        try (InputStream raw = Files.newInputStream(target);
                InputStream in = target.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            TracePacket.Builder b = TracePacket.newBuilder();
            for (int tag = coded.readTag(); tag != 0; tag = coded.readTag()) {
                assertEquals(Trace.PACKET_FIELD_NUMBER, WireFormat.getTagFieldNumber(tag));
                b.clear();
                coded.readMessage(b, ExtensionRegistryLite.getEmptyRegistry());
                coded.resetSizeCounter();
                TracePacket p = b.build();
                int seq = p.getTrustedPacketSequenceId();
                assertTrue("every packet is on a sequence", seq > 0);
                if ((p.getSequenceFlags() & TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE) != 0) {
                    cleared.add(seq);
                }
                if ((p.getSequenceFlags() & TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE) != 0) {
                    assertTrue("sequence " + seq + " cleared before use", cleared.contains(seq));
                }
                if (p.hasTracePacketDefaults()) {
                    defaultTrack.put(seq, p.getTracePacketDefaults().getTrackEventDefaults().getTrackUuid());
                }
                if (p.hasTrackDescriptor() && p.getTrackDescriptor().getName().equals("PyTorch Profiler")) {
                    spanTrack = p.getTrackDescriptor().getUuid();
                }
                if (!p.hasTrackEvent()) {
                    continue;
                }
                TrackEvent e = p.getTrackEvent();
                long track = e.hasTrackUuid() ? e.getTrackUuid() : defaultTrack.getOrDefault(seq, -1L);
                switch (e.getType()) {
                    case TYPE_SLICE_BEGIN -> {
                        open.merge(seq, 1L, Long::sum);
                        if (track == spanTrack) {
                            spanEvents++;
                        } else {
                            events++;
                        }
                    }
                    case TYPE_SLICE_END -> {
                        long depth = open.merge(seq, -1L, Long::sum);
                        assertTrue("an end without a begin on sequence " + seq, depth >= 0);
                    }
                    case TYPE_INSTANT -> {
                        if (track == spanTrack) {
                            spanEvents++;
                        } else {
                            events++;
                        }
                    }
                    default -> {
                    }
                }
            }
        }
        open.forEach((seq, depth) -> assertEquals("slices left open on sequence " + seq, 0L, (long) depth));
        assertEquals("the span, its start and the window's end", 3, spanEvents);
        return events;
    }
}
