package dev.vantage.perfetto.format;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.ExtensionRegistryLite;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;

import dev.vantage.perfetto.format.PerfettoTrace.Track;
import dev.vantage.perfetto.format.PerfettoTrace.TrackKind;
import dev.vantage.perfetto.format.proto.ClockSnapshot;
import dev.vantage.perfetto.format.proto.CounterDescriptor;
import dev.vantage.perfetto.format.proto.DebugAnnotation;
import dev.vantage.perfetto.format.proto.InternedData;
import dev.vantage.perfetto.format.proto.InternedString;
import dev.vantage.perfetto.format.proto.Trace;
import dev.vantage.perfetto.format.proto.TraceAttributes;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TrackDescriptor;
import dev.vantage.perfetto.format.proto.TrackEvent;

/**
 * Reads a Perfetto trace file ({@code .pftrace}, gzip-compressed or not) the way Perfetto's trace processor
 * imports it, for the part of the format that track events use: sequences with their interned names and strings,
 * packet defaults, incremental and sequence-scoped clocks, track descriptors, begin/end/instant/counter events,
 * flows and trace attributes. Written by Vantage's {@code perfetto} exporter and by other tools (torch's
 * {@code export_chrome_trace("x.pftrace")} writes the same kind of packets).
 *
 * <p>Packets are parsed one at a time with the generated classes. {@link #stream} hands each resolved event to a
 * {@link PerfettoEvents} in file order, holding only the sequences' interning tables, clocks and counter state, so
 * its memory does not grow with the trace; {@link #read} collects them into a {@link PerfettoTrace} (events ordered
 * by time, ties in file order, begin and end events paired per track as Perfetto pairs them), which holds every
 * event. Clocks: builtin clocks are taken as the trace clock unless a clock snapshot relates them to the primary trace
 * clock ({@code primary_trace_clock}, BOOTTIME when unset); a sequence-scoped clock is converted through the snapshot
 * of its sequence that names it.
 *
 * <p>Damage: a packet whose bytes do not parse is skipped and reading goes on; a file cut off inside a packet (a
 * killed writer, a gzip file cut short) ends before that packet; bytes that are not framed as packets end the reading
 * there. {@link #stream} reports each with its byte offset ({@link PerfettoEvents}); {@link #read} refuses the file,
 * naming the offset.
 *
 * <p>Not thread-safe; one instance per file, or use the static methods.
 */
public final class PerfettoTraceReader {

    private static final int BEGIN = TrackEvent.Type.TYPE_SLICE_BEGIN_VALUE;
    private static final int END = TrackEvent.Type.TYPE_SLICE_END_VALUE;
    private static final int INSTANT = TrackEvent.Type.TYPE_INSTANT_VALUE;
    private static final int COUNTER = TrackEvent.Type.TYPE_COUNTER_VALUE;
    private static final int DEFAULT_PRIMARY_CLOCK = 6;

    /** A sequence-scoped clock, converted through its snapshot. */
    private static final class SequenceClock {
        boolean incremental;
        long unitNanos = 1;
        long lastNanos;
        long snapshotNanos;
        int builtin;
        long builtinNanos;
    }

    /** Per packet sequence: interning tables, defaults and clocks. */
    private static final class Sequence {
        final Map<Long, String> names = new HashMap<>();
        final Map<Long, String> categories = new HashMap<>();
        final Map<Long, String> annotationNames = new HashMap<>();
        final Map<Long, String> strings = new HashMap<>();
        final Map<Integer, SequenceClock> clocks = new HashMap<>();
        int defaultClock;
        long defaultTrack;
        boolean hasDefaultTrack;
        boolean valid;
    }

    private final Map<Integer, Sequence> sequences = new HashMap<>();
    private final Map<Long, CounterDescriptor> counterDescriptors = new HashMap<>();
    private final Map<Long, Double> incrementalCounters = new HashMap<>();
    private final Map<Integer, Long> builtinOffsets = new HashMap<>();
    private final PerfettoEvents sink;
    private int primaryClock = DEFAULT_PRIMARY_CLOCK;
    private long packets;

    private PerfettoTraceReader(PerfettoEvents sink) {
        this.sink = sink;
    }

    /**
     * Reads a trace file; gzip is recognized by its magic bytes.
     *
     * @throws IOException if the file cannot be read or is not a protobuf {@code Trace}; a damaged one is named
     *     with the byte offset of the damage
     */
    public static PerfettoTrace read(Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        try (InputStream in = Files.newInputStream(file)) {
            return read(in);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("damaged at byte")) {
                throw new IOException(file + " is " + e.getMessage(), e);
            }
            throw e;
        }
    }

    /**
     * Reads a trace from a stream (gzip recognized by its magic bytes), which is read to its end but not closed.
     *
     * @throws IOException if the stream cannot be read or does not hold a protobuf {@code Trace}; a damaged one with
     *     the message {@code damaged at byte N: ...}
     */
    public static PerfettoTrace read(InputStream in) throws IOException {
        Objects.requireNonNull(in, "in");
        PerfettoTraceCollector collector = new PerfettoTraceCollector();
        long packets = stream(in, collector);
        return collector.trace(packets);
    }

    /**
     * Reads a trace from a stream (gzip recognized by its magic bytes), handing each track, attribute and event to
     * {@code sink} in file order; the stream is read to its end, or to the damage that ends the reading, and not
     * closed.
     *
     * @return the number of packets read
     * @throws IOException if the stream cannot be read, or {@code sink} throws
     */
    public static long stream(InputStream in, PerfettoEvents sink) throws IOException {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(sink, "sink");
        BufferedInputStream buffered = new BufferedInputStream(in, 1 << 16);
        buffered.mark(2);
        int b0 = buffered.read();
        int b1 = buffered.read();
        buffered.reset();
        InputStream source = buffered;
        if (b0 == 0x1f && b1 == 0x8b) {
            try {
                source = new CutGzipInputStream(buffered, 1 << 16);
            } catch (CutGzipInputStream.HeaderException e) {
                sink.unreadable(0, e.getMessage());
                return 0;
            }
        }
        PerfettoTraceReader reader = new PerfettoTraceReader(sink);
        reader.readPackets(source);
        return reader.packets;
    }

    /**
     * The packets one at a time, each within its own length: one that does not parse is skipped, one the file cuts
     * off ends the reading, as do bytes that are not a packet's framing.
     */
    private void readPackets(InputStream in) throws IOException {
        CodedInputStream coded = CodedInputStream.newInstance(in, 1 << 16);
        TracePacket.Builder builder = TracePacket.newBuilder();
        // the size limit counts every byte since the last reset: a trace may be larger than 2 GiB
        long base = 0;
        while (true) {
            long start = base + coded.getTotalBytesRead();
            int tag;
            try {
                tag = coded.readTag();
            } catch (InvalidProtocolBufferException e) {
                sink.unreadable(start, "no packet starts there (" + e.getMessage() + ")");
                return;
            }
            if (tag == 0) {
                return;
            }
            if (WireFormat.getTagFieldNumber(tag) != Trace.PACKET_FIELD_NUMBER
                    || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                // a Trace holds packets and nothing else
                sink.unreadable(start, "no packet starts there (field " + WireFormat.getTagFieldNumber(tag)
                        + ", wire type " + WireFormat.getTagWireType(tag) + ")");
                return;
            }
            int length;
            try {
                length = coded.readRawVarint32();
            } catch (InvalidProtocolBufferException e) {
                sink.cutOff(start);
                return;
            }
            if (length < 0) {
                sink.unreadable(start, "a packet of negative length");
                return;
            }
            int limit;
            try {
                limit = coded.pushLimit(length);
            } catch (InvalidProtocolBufferException e) {
                // a length past what the stream's counter can hold: no packet is 2 GiB long
                sink.cutOff(start);
                return;
            }
            // where the packet ends, counted here: a nested message that fails to parse leaves its own limit pushed
            // in the stream, so the stream's bytes-until-limit no longer answer for the packet
            long packetEnd = coded.getTotalBytesRead() + (long) length;
            builder.clear();
            boolean parsed;
            try {
                builder.mergeFrom(coded, ExtensionRegistryLite.getEmptyRegistry());
                coded.checkLastTagWas(0);
                parsed = true;
            } catch (InvalidProtocolBufferException e) {
                parsed = false;
            }
            if (parsed && coded.getBytesUntilLimit() > 0) {
                // the input ended inside the packet: the parser takes the end of the input for the packet's end
                sink.cutOff(start);
                return;
            }
            coded.popLimit(limit);
            if (!parsed) {
                try {
                    coded.skipRawBytes((int) Math.max(0, packetEnd - coded.getTotalBytesRead()));
                } catch (InvalidProtocolBufferException e) {
                    sink.cutOff(start);
                    return;
                }
            }
            base += coded.getTotalBytesRead();
            coded.resetSizeCounter();
            if (parsed) {
                packet(builder.build());
            } else {
                packets++;
                sink.damagedPacket(start);
            }
        }
    }

    private void packet(TracePacket p) throws IOException {
        int order = (int) packets++;
        int seqId = p.getTrustedPacketSequenceId();
        Sequence seq = sequences.computeIfAbsent(seqId, k -> new Sequence());
        int flags = p.getSequenceFlags();
        if ((flags & TracePacket.SequenceFlags.SEQ_INCREMENTAL_STATE_CLEARED_VALUE) != 0
                || p.getIncrementalStateCleared()) {
            Sequence cleared = new Sequence();
            cleared.clocks.putAll(seq.clocks);
            cleared.valid = true;
            sequences.put(seqId, cleared);
            seq = cleared;
        }
        if ((flags & TracePacket.SequenceFlags.SEQ_NEEDS_INCREMENTAL_STATE_VALUE) != 0 && !seq.valid) {
            sink.problem("packet " + order + " needs the incremental state of sequence " + seqId
                    + ", which was never cleared: skipped, as Perfetto skips it");
            return;
        }
        if (p.hasTracePacketDefaults()) {
            seq.defaultClock = p.getTracePacketDefaults().getTimestampClockId();
            seq.hasDefaultTrack = p.getTracePacketDefaults().getTrackEventDefaults().hasTrackUuid();
            seq.defaultTrack = p.getTracePacketDefaults().getTrackEventDefaults().getTrackUuid();
        }
        if (p.hasInternedData()) {
            intern(seq, p.getInternedData());
        }
        if (p.hasClockSnapshot()) {
            clockSnapshot(seq, p.getClockSnapshot());
            return;
        }
        if (p.hasTraceAttributes()) {
            for (TraceAttributes.Attribute a : p.getTraceAttributes().getAttributeList()) {
                sink.attribute(a.getKey(), a.hasLongValue() ? Long.toString(a.getLongValue()) : a.getStringValue());
            }
        }
        if (p.hasTrackDescriptor()) {
            descriptor(p.getTrackDescriptor());
        }
        if (p.hasTrackEvent()) {
            long ts = timestamp(seq, p, order);
            trackEvent(seq, p.getTrackEvent(), ts, order);
        }
    }

    private static void intern(Sequence seq, InternedData d) {
        d.getEventNamesList().forEach(n -> seq.names.put(n.getIid(), n.getName()));
        d.getEventCategoriesList().forEach(c -> seq.categories.put(c.getIid(), c.getName()));
        d.getDebugAnnotationNamesList().forEach(n -> seq.annotationNames.put(n.getIid(), n.getName()));
        for (InternedString s : d.getDebugAnnotationStringValuesList()) {
            seq.strings.put(s.getIid(), s.getStr().toString(StandardCharsets.UTF_8));
        }
    }

    private void clockSnapshot(Sequence seq, ClockSnapshot snapshot) {
        if (snapshot.hasPrimaryTraceClock()) {
            primaryClock = snapshot.getPrimaryTraceClock().getNumber();
        }
        long primaryNanos = 0;
        boolean hasPrimary = false;
        int builtin = 0;
        long builtinNanos = 0;
        for (ClockSnapshot.Clock c : snapshot.getClocksList()) {
            long unit = c.getUnitMultiplierNs() == 0 ? 1 : c.getUnitMultiplierNs();
            if (c.getClockId() < 64) {
                if (builtin == 0 || c.getClockId() == primaryClock) {
                    builtin = c.getClockId();
                    builtinNanos = c.getTimestamp() * unit;
                }
                if (c.getClockId() == primaryClock) {
                    hasPrimary = true;
                    primaryNanos = c.getTimestamp() * unit;
                }
            }
        }
        for (ClockSnapshot.Clock c : snapshot.getClocksList()) {
            long unit = c.getUnitMultiplierNs() == 0 ? 1 : c.getUnitMultiplierNs();
            if (c.getClockId() < 64) {
                if (hasPrimary) {
                    builtinOffsets.put(c.getClockId(), primaryNanos - c.getTimestamp() * unit);
                }
            } else if (c.getClockId() < 128) {
                SequenceClock clock = new SequenceClock();
                clock.incremental = c.getIsIncremental();
                clock.unitNanos = unit;
                clock.snapshotNanos = c.getTimestamp() * unit;
                clock.lastNanos = clock.snapshotNanos;
                clock.builtin = builtin;
                clock.builtinNanos = builtinNanos;
                seq.clocks.put(c.getClockId(), clock);
            }
        }
    }

    private long timestamp(Sequence seq, TracePacket p, int order) throws IOException {
        long raw = p.getTimestamp();
        int clockId = p.hasTimestampClockId() ? p.getTimestampClockId() : seq.defaultClock;
        if (clockId >= 64 && clockId < 128) {
            SequenceClock clock = seq.clocks.get(clockId);
            if (clock == null) {
                sink.problem("packet " + order + " is timed by sequence clock " + clockId + ", never defined");
                return raw;
            }
            long nanos;
            if (clock.incremental) {
                clock.lastNanos += raw * clock.unitNanos;
                nanos = clock.lastNanos;
            } else {
                nanos = raw * clock.unitNanos;
            }
            return builtin(clock.builtin, clock.builtinNanos + (nanos - clock.snapshotNanos));
        }
        return clockId == 0 ? raw : builtin(clockId, raw);
    }

    private long builtin(int clockId, long nanos) {
        Long offset = builtinOffsets.get(clockId);
        return offset == null ? nanos : nanos + offset;
    }

    private void descriptor(TrackDescriptor d) throws IOException {
        TrackKind kind;
        String name = d.hasName() ? d.getName() : d.getStaticName();
        long pid = -1;
        long tid = -1;
        List<String> labels = List.of();
        String unit = "";
        if (d.hasThread()) {
            kind = TrackKind.THREAD;
            pid = d.getThread().getPid();
            tid = d.getThread().getTid();
            if (name.isEmpty()) {
                name = d.getThread().getThreadName();
            }
        } else if (d.hasProcess()) {
            kind = TrackKind.PROCESS;
            pid = d.getProcess().getPid();
            labels = d.getProcess().getProcessLabelsList();
            if (name.isEmpty()) {
                name = d.getProcess().getProcessName();
            }
        } else if (d.hasCounter()) {
            kind = TrackKind.COUNTER;
            CounterDescriptor c = d.getCounter();
            counterDescriptors.put(d.getUuid(), c);
            unit = c.hasUnitName() ? c.getUnitName() : c.hasUnit() ? c.getUnit().name() : "";
        } else {
            kind = TrackKind.CUSTOM;
        }
        sink.track(new Track(d.getUuid(), d.getParentUuid(), kind, name, pid, tid, d.getSiblingOrderRank(), labels,
                unit));
    }

    private void trackEvent(Sequence seq, TrackEvent e, long ts, int order) throws IOException {
        long track = e.hasTrackUuid() ? e.getTrackUuid() : seq.hasDefaultTrack ? seq.defaultTrack : 0;
        int type = e.getType().getNumber();
        if (type == COUNTER) {
            double value = counterValue(track, e.hasDoubleCounterValue() ? e.getDoubleCounterValue()
                    : e.getCounterValue());
            sink.event(new PerfettoEvent(PerfettoEvent.Type.COUNTER, ts, track, "", "", -1, Map.of(), List.of(),
                    List.of(), value));
            return;
        }
        PerfettoEvent.Type kind = type == BEGIN ? PerfettoEvent.Type.SLICE_BEGIN : type == END
                ? PerfettoEvent.Type.SLICE_END : type == INSTANT ? PerfettoEvent.Type.INSTANT : null;
        if (kind == null) {
            sink.problem("an event of type " + type + " at " + ts + " is neither a slice nor a counter");
            return;
        }
        String name = "";
        if (e.hasNameIid()) {
            name = seq.names.get(e.getNameIid());
            if (name == null) {
                sink.problem("packet " + order + " names interned event name " + e.getNameIid() + ", never defined");
                name = "";
            }
        } else if (e.hasName()) {
            name = e.getName();
        }
        StringBuilder category = new StringBuilder();
        for (long iid : e.getCategoryIidsList()) {
            String c = seq.categories.get(iid);
            if (c == null) {
                sink.problem("packet " + order + " names interned category " + iid + ", never defined");
                continue;
            }
            category.append(category.length() == 0 ? "" : ",").append(c);
        }
        for (String c : e.getCategoriesList()) {
            category.append(category.length() == 0 ? "" : ",").append(c);
        }
        Map<String, Object> args = new LinkedHashMap<>();
        for (DebugAnnotation a : e.getDebugAnnotationsList()) {
            args.put(annotationName(seq, a, order), value(seq, a, order));
        }
        if (e.hasCorrelationIdStr()) {
            args.put("correlation_id", e.getCorrelationIdStr());
        }
        sink.event(new PerfettoEvent(kind, ts, track, name, category.toString(),
                e.hasCorrelationId() ? e.getCorrelationId() : -1, args, e.getFlowIdsList(),
                e.getTerminatingFlowIdsList(), 0));
    }

    private String annotationName(Sequence seq, DebugAnnotation a, int order) throws IOException {
        if (a.hasNameIid()) {
            String name = seq.annotationNames.get(a.getNameIid());
            if (name == null) {
                sink.problem("packet " + order + " names interned annotation " + a.getNameIid() + ", never defined");
                return "";
            }
            return name;
        }
        return a.getName();
    }

    private Object value(Sequence seq, DebugAnnotation a, int order) throws IOException {
        switch (a.getValueCase()) {
            case BOOL_VALUE:
                return a.getBoolValue();
            case UINT_VALUE:
                return a.getUintValue();
            case INT_VALUE:
                return a.getIntValue();
            case DOUBLE_VALUE:
                return a.getDoubleValue();
            case POINTER_VALUE:
                return a.getPointerValue();
            case STRING_VALUE:
                return a.getStringValue();
            case LEGACY_JSON_VALUE:
                return a.getLegacyJsonValue();
            case STRING_VALUE_IID: {
                String s = seq.strings.get(a.getStringValueIid());
                if (s == null) {
                    sink.problem("packet " + order + " names interned string " + a.getStringValueIid()
                            + ", never defined");
                    return "";
                }
                return s;
            }
            default:
                break;
        }
        if (a.getDictEntriesCount() > 0) {
            Map<String, Object> dict = new LinkedHashMap<>();
            for (DebugAnnotation d : a.getDictEntriesList()) {
                dict.put(annotationName(seq, d, order), value(seq, d, order));
            }
            return dict;
        }
        List<Object> array = new ArrayList<>();
        for (DebugAnnotation v : a.getArrayValuesList()) {
            array.add(value(seq, v, order));
        }
        return array;
    }

    /** A counter's value, scaled by its descriptor's multiplier and summed when incremental. */
    private double counterValue(long track, double raw) {
        CounterDescriptor d = counterDescriptors.get(track);
        double value = raw;
        if (d != null && d.getUnitMultiplier() != 0) {
            value *= d.getUnitMultiplier();
        }
        if (d != null && d.getIsIncremental()) {
            value = incrementalCounters.merge(track, value, Double::sum);
        }
        return value;
    }
}
