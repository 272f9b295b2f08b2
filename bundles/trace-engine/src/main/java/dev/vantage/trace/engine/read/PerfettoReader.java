package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.util.TokenBuffer;

import dev.vantage.perfetto.format.PerfettoEvent;
import dev.vantage.perfetto.format.PerfettoEvents;
import dev.vantage.perfetto.format.PerfettoTrace;
import dev.vantage.perfetto.format.PerfettoTraceReader;
import dev.vantage.trace.engine.TraceBuilder;

/**
 * Fills a {@link TraceBuilder} from a Perfetto trace ({@code .pftrace}, plain or gzip): Vantage's {@code perfetto}
 * exporter's and any writer's track events, read with {@link PerfettoTraceReader} (the classes protoc generates from
 * the {@code perfetto-format} module's schema). Every event goes through the same {@link KinetoJsonReader#record}
 * as a Chrome JSON event, so a {@code .pftrace} yields the trace its Chrome export yields and every view
 * ({@code report}, {@code compare}, {@code convert}, {@code analyze}) gives the same figures for it.
 *
 * <p>What Perfetto says its own way is turned back into Kineto's {@code args} (the perfetto exporter's mapping,
 * docs/perfetto.md): a slice's {@code correlation_id} is its {@code External id}; device work's {@code device} and
 * {@code stream} are its track (the stream thread's tid, the device process's index from its name
 * {@code NPU 0 (emulated)}, else its pid); a {@code [memory]} instant's {@code Total Allocated} and
 * {@code Total Reserved} are the values of the {@code <DEVICE> memory allocated} and {@code ... reserved} counters
 * written with it; {@code Input Dims} and {@code Input type}, JSON text there, are read as the arrays they hold; a
 * runtime call or device work without a {@code correlation} takes the id of the flow that joins them. A slice on a
 * lane of a thread (a child track, for slices that overlap) is on that thread. The trace attributes are the
 * top-level keys of a Chrome trace: {@code distributedInfo} and {@code deviceProperties} as their JSON, the others
 * as metadata. Times are the trace's nanoseconds (Vantage writes them since the Unix epoch), base time 0.
 *
 * <p>libkineto's {@code PerfettoTraceBuilder} (kineto#1191, published until kineto {@code fe0f5dd8}, which moved it
 * out of the open repository) wrote no categories: its slices carry the activity's args as JSON text in a
 * {@code metadata} annotation and its id in {@code correlation_id}, and its metadata are {@code trace_metadata} and
 * {@code device_properties} instants. Such slices are classified by what they carry ({@link #kinetoActivity}). No
 * real file of that writer, nor of torch's own {@code .pftrace} export, was available: that part is checked on
 * packets built as the published builder wrote them.
 *
 * <p>Design: the file is read as a stream of packets ({@link PerfettoTraceReader#stream}), and each slice goes into
 * the builder when its end is read (begins and ends are paired per track in file order, as writers write a track's
 * events in time order), so the reader holds the tracks, each track's open slices and the {@code [memory]} instants
 * that wait for their counters (written with them: at most {@value #MEMORY_WAIT} events later), and nothing that
 * grows with the trace: a {@code .pftrace} reads in the heap its Chrome JSON reads in. An event on a track that no
 * descriptor declared before it is left out. A damaged file gives what is readable ({@link TraceRepairs}): a packet
 * that does not parse is skipped, a packet the end of the file cuts off ends the reading, as do bytes that are not
 * packets; a file without one packet is refused.
 */
final class PerfettoReader implements PerfettoEvents {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A device process's name as the exporters write it: type, index, maybe {@code (emulated)}. */
    private static final Pattern DEVICE_PROCESS = Pattern.compile("[A-Za-z][A-Za-z0-9_]* (\\d{1,5})( \\(emulated\\))?");
    private static final String ALLOCATED = " memory allocated";
    private static final String RESERVED = " memory reserved";
    /** How many events after a {@code [memory]} instant its counters may come. */
    static final int MEMORY_WAIT = 256;

    /** Where a track's slices go: a thread ({@code pid/tid}, as the JSON reader keys them) and its device, if any. */
    private record Place(long pid, long tid, int deviceIndex) {
    }

    /** A slice whose end was not read yet. */
    private record Open(PerfettoEvent begin, Place place) {
    }

    /** A {@code [memory]} instant waiting for the totals of its counters. */
    private static final class PendingMemory {
        final PerfettoEvent event;
        final Place place;
        final long seenAt;
        Double allocated;
        Double reserved;

        PendingMemory(PerfettoEvent event, Place place, long seenAt) {
            this.event = event;
            this.place = place;
            this.seenAt = seenAt;
        }
    }

    private final TraceBuilder b;
    private final EventArgs eventArgs = new EventArgs();
    private final KinetoJsonReader events;
    private final TraceRepairs repairs;
    private final Map<Long, PerfettoTrace.Track> tracks = new HashMap<>();
    private final Map<Long, PerfettoTrace.Track> processes = new LinkedHashMap<>();
    private final Map<Long, Place> places = new HashMap<>();
    private final Map<Long, ArrayDeque<Open>> open = new HashMap<>();
    private final ArrayDeque<PendingMemory> memory = new ArrayDeque<>();
    private long seen;
    private long read;

    private PerfettoReader(TraceBuilder b, TraceRepairs repairs) {
        this.b = b;
        this.events = new KinetoJsonReader(b);
        this.repairs = repairs;
    }

    /** Returns true for the names Perfetto's traces have: {@code .pftrace}, {@code .perfetto-trace}, and their .gz. */
    static boolean isPerfettoName(String name) {
        String n = name.endsWith(".gz") ? name.substring(0, name.length() - 3) : name;
        return n.endsWith(".pftrace") || n.endsWith(".perfetto-trace");
    }

    static void read(Path file, TraceBuilder b, TraceRepairs repairs) throws IOException {
        boolean gzip;
        try (InputStream raw = Files.newInputStream(file)) {
            gzip = raw.read() == 0x1f && raw.read() == 0x8b;
        }
        repairs.file(file, gzip);
        PerfettoReader reader = new PerfettoReader(b, repairs);
        reader.events.format = "perfetto";
        reader.events.sawEvents = true;
        long packets;
        try (InputStream in = Files.newInputStream(file)) {
            packets = PerfettoTraceReader.stream(in, reader);
        }
        if (packets == 0) {
            throw repairs.isClean() ? repairs.refusal(-1, "it is not a Perfetto trace: it has no packets")
                    : repairs.nothingReadable();
        }
        reader.finish();
    }

    @Override
    public void track(PerfettoTrace.Track track) throws IOException {
        tracks.put(track.uuid(), track);
        if (track.kind() == PerfettoTrace.TrackKind.PROCESS) {
            processes.putIfAbsent(track.pid(), track);
        } else if (track.kind() == PerfettoTrace.TrackKind.THREAD && !track.name().isEmpty()) {
            events.metadata("thread_name", KinetoJsonReader.numberIdent(track.pid()),
                    KinetoJsonReader.numberIdent(track.tid()), track.name());
        }
    }

    @Override
    public void attribute(String key, String value) throws IOException {
        topLevel(key, value);
    }

    @Override
    public void problem(String what) {
        // what Perfetto's importer also passes over; nothing of it reaches the views
    }

    @Override
    public void damagedPacket(long offset) throws IOException {
        repairs.skipped(TraceRepairs.Kind.DAMAGED_PACKET, offset);
    }

    @Override
    public void cutOff(long offset) throws IOException {
        repairs.skipped(TraceRepairs.Kind.CUT_PACKET, offset);
    }

    @Override
    public void unreadable(long offset, String why) throws IOException {
        if (read == 0) {
            throw repairs.refusal(offset, "it is not a Perfetto trace: " + why);
        }
        repairs.skipped(TraceRepairs.Kind.UNREADABLE_REST, offset);
    }

    @Override
    public void event(PerfettoEvent e) throws IOException {
        read++;
        seen++;
        switch (e.type()) {
            case COUNTER -> counter(e);
            case SLICE_BEGIN -> open.computeIfAbsent(e.trackUuid(), k -> new ArrayDeque<>())
                    .push(new Open(e, place(e.trackUuid())));
            case SLICE_END -> {
                ArrayDeque<Open> stack = open.get(e.trackUuid());
                Open o = stack == null ? null : stack.poll();
                if (o != null) {
                    slice(o.begin, o.place, e.timestampNanos() - o.begin.timestampNanos());
                }
            }
            default -> {
                Place place = place(e.trackUuid());
                if (e.name().equals("[memory]") && !e.args().containsKey("Total Allocated")) {
                    memory.add(new PendingMemory(e, place, seen));
                } else {
                    slice(e, place, 0);
                }
            }
        }
        flushMemory(false);
    }

    /** A memory counter's value goes to the oldest {@code [memory]} instant of its time that lacks it. */
    private void counter(PerfettoEvent e) {
        PerfettoTrace.Track track = tracks.get(e.trackUuid());
        String name = track == null ? "" : track.name();
        boolean allocated = name.endsWith(ALLOCATED);
        if (!allocated && !name.endsWith(RESERVED)) {
            return;
        }
        for (PendingMemory m : memory) {
            if (m.event.timestampNanos() == e.timestampNanos() && (allocated ? m.allocated : m.reserved) == null) {
                if (allocated) {
                    m.allocated = e.counterValue();
                } else {
                    m.reserved = e.counterValue();
                }
                return;
            }
        }
    }

    /** Puts the waiting {@code [memory]} instants that have their totals, or waited long enough, into the builder. */
    private void flushMemory(boolean all) throws IOException {
        while (!memory.isEmpty()) {
            PendingMemory m = memory.peek();
            boolean complete = m.allocated != null && m.reserved != null;
            if (!complete && !all && seen - m.seenAt < MEMORY_WAIT) {
                return;
            }
            memory.poll();
            Map<String, Object> totals = new LinkedHashMap<>();
            if (complete) {
                totals.put("Total Allocated", m.allocated.longValue());
                totals.put("Total Reserved", m.reserved.longValue());
            }
            slice(m.event, m.place, 0, totals);
        }
    }

    /** The end of the file: slices that never ended end where they began, waiting instants go in. */
    private void finish() throws IOException {
        flushMemory(true);
        for (ArrayDeque<Open> stack : open.values()) {
            for (Open o : stack) {
                slice(o.begin, o.place, 0);
            }
        }
        open.clear();
        PerfettoTrace.Track host = processes.values().stream().filter(p -> p.labels().contains("CPU")).findFirst()
                .orElse(processes.values().stream().findFirst().orElse(null));
        if (host != null) {
            events.metadata("process_name", KinetoJsonReader.numberIdent(host.pid()), 0, host.name());
        }
        events.finish();
    }

    private void slice(PerfettoEvent s, Place place, long duration) throws IOException {
        slice(s, place, duration, Map.of());
    }

    /** One slice or instant into the builder, through the JSON reader's {@code record}. */
    private void slice(PerfettoEvent s, Place place, long duration, Map<String, Object> extra) throws IOException {
        boolean instant = s.type() == PerfettoEvent.Type.INSTANT;
        int catId = events.category(s.category());
        events.countCategory(catId);
        if (instant && s.category().isEmpty() && KINETO_METADATA.contains(s.name())) {
            kinetoMetadata(s);
            return;
        }
        if (place == null) {
            return; // an event on a track no descriptor declared before it
        }
        int name = events.name(s.name());
        Map<String, Object> args = new LinkedHashMap<>();
        if (s.correlationId() >= 0) {
            args.put("External id", s.correlationId());
        }
        for (Map.Entry<String, Object> e : s.args().entrySet()) {
            Object v = e.getValue();
            if ((e.getKey().equals("Input Dims") || e.getKey().equals("Input type")) && v instanceof String text) {
                v = json(text);
            }
            args.put(e.getKey(), v);
        }
        args.putAll(extra);
        if (s.category().isEmpty() && !instant) {
            // libkineto's PerfettoTraceBuilder: no category; the activity's args as JSON text in "metadata",
            // its id in "correlation_id": what it is follows from them
            catId = kinetoActivity(s.name(), args);
        }
        boolean device = events.isDeviceCategory(catId);
        if (device) {
            args.putIfAbsent("device", place.deviceIndex);
            args.putIfAbsent("stream", place.tid);
        }
        long flow = flowOf(s);
        if ((device || events.isRuntimeCategory(catId)) && !args.containsKey("correlation") && flow >= 0) {
            args.put("correlation", flow);
        }
        EventArgs read = eventArgs.clear();
        read.keepOthers = events.keepsArgs(catId, name);
        if (!args.isEmpty()) {
            TokenBuffer buffer = new TokenBuffer(JSON, false);
            JSON.writeValue(buffer, args);
            try (JsonParser p = buffer.asParser()) {
                p.nextToken();
                read.read(p);
            }
        }
        events.record(instant ? 'i' : 'X', catId, name, place.pid, place.tid, s.timestampNanos(),
                Math.max(0, duration), read);
    }

    /** The id of a flow a slice starts, else of one it ends (the last given), else -1. */
    private static long flowOf(PerfettoEvent s) {
        if (!s.flowIds().isEmpty()) {
            return s.flowIds().get(s.flowIds().size() - 1);
        }
        if (!s.terminatingFlowIds().isEmpty()) {
            return s.terminatingFlowIds().get(s.terminatingFlowIds().size() - 1);
        }
        return -1;
    }

    /** The instants libkineto's PerfettoTraceBuilder writes the trace's metadata in, on its process track. */
    private static final java.util.Set<String> KINETO_METADATA = java.util.Set.of("trace_metadata",
            "device_properties");
    private static final Pattern RUNTIME_NAME = Pattern.compile("(cuda|cu|hip|hsa|nccl)[A-Z].*");

    /**
     * The category of a slice libkineto's PerfettoTraceBuilder wrote (it writes none), from what it carries:
     * device work has the {@code device} and {@code stream} CUPTI gives it (copies and fills by their names), a
     * runtime call CUPTI's {@code cbid} or a runtime's name, a {@code ProfilerStep#N} is an annotation, anything else
     * an operator. Its {@code metadata} text becomes its args; its {@code correlation_id} is the runtime's
     * {@code correlation} on runtime calls and device work and the operator's {@code External id} on host events.
     */
    private int kinetoActivity(String name, Map<String, Object> args) {
        if (args.remove("metadata") instanceof String text) {
            String body = text.strip();
            Object parsed = json(body.startsWith("{") ? body : "{" + body + "}");
            if (parsed instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
                o.fields().forEachRemaining(e -> args.putIfAbsent(e.getKey(), e.getValue()));
            }
        }
        Object id = args.remove("correlation_id");
        String category;
        if (args.containsKey("device") && args.containsKey("stream")) {
            category = name.startsWith("Memcpy") ? "gpu_memcpy" : name.startsWith("Memset") ? "gpu_memset" : "kernel";
        } else if (args.containsKey("cbid") || RUNTIME_NAME.matcher(name).matches()) {
            category = "cuda_runtime";
        } else if (name.startsWith("ProfilerStep#")) {
            category = "user_annotation";
        } else {
            category = "cpu_op";
        }
        if (id != null) {
            if (category.equals("cpu_op") || category.equals("user_annotation")) {
                args.putIfAbsent("External id", id);
            } else {
                args.putIfAbsent("correlation", id);
            }
        }
        return events.category(category);
    }

    /** libkineto's metadata instants: each annotation a top-level key of its JSON ({@code distributedInfo}, ...). */
    private void kinetoMetadata(PerfettoEvent s) throws IOException {
        for (Map.Entry<String, Object> e : s.args().entrySet()) {
            String value = String.valueOf(e.getValue());
            if (s.name().equals("device_properties")) {
                String body = value.strip();
                topLevel("deviceProperties", body.startsWith("[") ? body : "[" + body + "]");
            } else {
                topLevel(e.getKey(), value);
            }
        }
    }

    private static Object json(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            return text;
        }
    }

    /** One of Kineto's top-level keys: {@code distributedInfo} and {@code deviceProperties} as JSON, else metadata. */
    private void topLevel(String key, String value) throws IOException {
        if (key.equals("distributedInfo") || key.equals("deviceProperties")) {
            try (JsonParser p = JSON.getFactory().createParser(value)) {
                if (p.nextToken() == null) {
                    return;
                }
                if (key.equals("distributedInfo")) {
                    events.distributedInfo(p);
                } else {
                    events.deviceProperties(p);
                }
            } catch (com.fasterxml.jackson.core.JacksonException ex) {
                b.metadata(key, value); // not JSON: kept as it is
            }
        } else {
            b.metadata(key, value);
        }
    }

    /** Where a track's slices go, worked out from the track and its ancestors when its first event is read. */
    private Place place(long uuid) {
        Place cached = places.get(uuid);
        if (cached != null || !tracks.containsKey(uuid)) {
            return cached;
        }
        PerfettoTrace.Track tr = tracks.get(uuid);
        PerfettoTrace.Track thread = tr;
        int hops = 0;
        while (thread != null && thread.kind() == PerfettoTrace.TrackKind.CUSTOM && thread.parentUuid() != 0
                && hops++ < 64) {
            thread = tracks.get(thread.parentUuid());
        }
        Place place;
        if (thread != null && thread.kind() == PerfettoTrace.TrackKind.THREAD) {
            place = new Place(KinetoJsonReader.numberIdent(thread.pid()), KinetoJsonReader.numberIdent(thread.tid()),
                    deviceIndex(processes.get(thread.pid()), thread.pid()));
        } else if (thread != null && thread.kind() == PerfettoTrace.TrackKind.PROCESS) {
            place = new Place(KinetoJsonReader.numberIdent(thread.pid()), events.textIdent(tr.name()),
                    deviceIndex(thread, thread.pid()));
        } else if (tr.kind() != PerfettoTrace.TrackKind.COUNTER) {
            // a track of its own, as the profiler's span: a row named after it
            place = new Place(events.textIdent("Spans"), events.textIdent(tr.name()), 0);
        } else {
            return null;
        }
        places.put(uuid, place);
        return place;
    }

    private static int deviceIndex(PerfettoTrace.Track process, long pid) {
        if (process != null) {
            Matcher m = DEVICE_PROCESS.matcher(process.name());
            if (m.matches()) {
                return Integer.parseInt(m.group(1));
            }
        }
        return pid >= 0 && pid < 1 << 16 ? (int) pid : 0;
    }
}
