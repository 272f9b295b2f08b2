package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.util.TokenBuffer;

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
 * <p>The reader holds the whole trace while it fills the builder (as {@link PerfettoTraceReader} does).
 */
final class PerfettoReader {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** A device process's name as the exporters write it: type, index, maybe {@code (emulated)}. */
    private static final Pattern DEVICE_PROCESS = Pattern.compile("[A-Za-z][A-Za-z0-9_]* (\\d{1,5})( \\(emulated\\))?");
    private static final String ALLOCATED = " memory allocated";
    private static final String RESERVED = " memory reserved";

    /** Where a track's slices go: a thread ({@code pid/tid}, as the JSON reader keys them) and its device, if any. */
    private record Place(long pid, long tid, int deviceIndex) {
    }

    private final TraceBuilder b;
    private final KinetoJsonReader events;
    private final PerfettoTrace trace;
    private final Map<Long, Place> places = new HashMap<>();
    /** Per time, the values of memory counters written then, in file order. */
    private final Map<Long, ArrayDeque<Double>> allocated = new HashMap<>();
    private final Map<Long, ArrayDeque<Double>> reserved = new HashMap<>();

    private PerfettoReader(TraceBuilder b, PerfettoTrace trace) {
        this.b = b;
        this.events = new KinetoJsonReader(b);
        this.trace = trace;
    }

    /** Returns true for the names Perfetto's traces have: {@code .pftrace}, {@code .perfetto-trace}, and their .gz. */
    static boolean isPerfettoName(String name) {
        String n = name.endsWith(".gz") ? name.substring(0, name.length() - 3) : name;
        return n.endsWith(".pftrace") || n.endsWith(".perfetto-trace");
    }

    static void read(Path file, TraceBuilder b) throws IOException {
        PerfettoTrace trace;
        try {
            trace = PerfettoTraceReader.read(file);
        } catch (IOException e) {
            throw new IOException(file + " is not a readable Perfetto trace: " + e.getMessage(), e);
        }
        if (trace.packets() == 0) {
            throw new IOException(file + " is not a Perfetto trace: it has no packets");
        }
        new PerfettoReader(b, trace).fill();
    }

    private void fill() throws IOException {
        events.format = "perfetto";
        events.sawEvents = true;
        attributes();
        tracks();
        memoryCounters();
        Map<Integer, Long> flowOf = flows();
        EventArgs a = new EventArgs();
        TokenBuffer buffer = new TokenBuffer(JSON, false);
        for (PerfettoTrace.Slice s : trace.slices()) {
            int catId = events.category(s.category());
            events.countCategory(catId);
            if (s.instant() && s.category().isEmpty() && KINETO_METADATA.contains(s.name())) {
                kinetoMetadata(s);
                continue;
            }
            Place place = places.get(s.trackUuid());
            if (place == null) {
                continue; // an event on a track no descriptor declared: the reader reported it as a problem
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
            if (s.category().isEmpty() && !s.instant()) {
                // libkineto's PerfettoTraceBuilder: no category; the activity's args as JSON text in "metadata",
                // its id in "correlation_id": what it is follows from them
                catId = kinetoActivity(s.name(), args);
            }
            boolean device = events.isDeviceCategory(catId);
            if (device) {
                args.putIfAbsent("device", place.deviceIndex);
                args.putIfAbsent("stream", place.tid);
            }
            if ((device || events.isRuntimeCategory(catId)) && !args.containsKey("correlation")
                    && flowOf.containsKey(s.index())) {
                args.put("correlation", flowOf.get(s.index()));
            }
            if (s.instant() && s.name().equals("[memory]") && !args.containsKey("Total Allocated")) {
                Double al = poll(allocated, s.startNanos());
                Double re = poll(reserved, s.startNanos());
                if (al != null && re != null) {
                    args.put("Total Allocated", al.longValue());
                    args.put("Total Reserved", re.longValue());
                }
            }
            EventArgs read = a.clear();
            read.keepOthers = events.keepsArgs(catId, name);
            if (!args.isEmpty()) {
                buffer = new TokenBuffer(JSON, false);
                JSON.writeValue(buffer, args);
                try (JsonParser p = buffer.asParser()) {
                    p.nextToken();
                    read.read(p);
                }
            }
            events.record(s.instant() ? 'i' : 'X', catId, name, place.pid, place.tid, s.startNanos(),
                    Math.max(0, s.durationNanos()), read);
        }
        events.finish();
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
    private void kinetoMetadata(PerfettoTrace.Slice s) throws IOException {
        for (Map.Entry<String, Object> e : s.args().entrySet()) {
            String value = String.valueOf(e.getValue());
            if (s.name().equals("device_properties")) {
                String body = value.strip();
                attribute("deviceProperties", body.startsWith("[") ? body : "[" + body + "]");
            } else {
                attribute(e.getKey(), value);
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

    private static Double poll(Map<Long, ArrayDeque<Double>> values, long time) {
        ArrayDeque<Double> q = values.get(time);
        return q == null ? null : q.poll();
    }

    /** The trace attributes: Kineto's top-level keys. */
    private void attributes() throws IOException {
        for (Map.Entry<String, String> e : trace.attributes().entrySet()) {
            attribute(e.getKey(), e.getValue());
        }
    }

    /** One of Kineto's top-level keys: {@code distributedInfo} and {@code deviceProperties} as JSON, else metadata. */
    private void attribute(String key, String value) throws IOException {
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

    /** Where each track's slices go, and the processes' and threads' names. */
    private void tracks() {
        Map<Long, PerfettoTrace.Track> byUuid = new HashMap<>();
        Map<Long, PerfettoTrace.Track> processes = new HashMap<>();
        PerfettoTrace.Track host = null;
        for (PerfettoTrace.Track tr : trace.tracks()) {
            byUuid.put(tr.uuid(), tr);
            if (tr.kind() == PerfettoTrace.TrackKind.PROCESS) {
                processes.putIfAbsent(tr.pid(), tr);
                if (host == null && tr.labels().contains("CPU")) {
                    host = tr;
                }
            }
        }
        if (host == null) {
            for (PerfettoTrace.Track tr : trace.tracks()) {
                if (tr.kind() == PerfettoTrace.TrackKind.PROCESS) {
                    host = tr;
                    break;
                }
            }
        }
        if (host != null) {
            events.metadata("process_name", host.pid(), 0, host.name());
        }
        for (PerfettoTrace.Track tr : trace.tracks()) {
            PerfettoTrace.Track thread = tr;
            int hops = 0;
            while (thread != null && thread.kind() == PerfettoTrace.TrackKind.CUSTOM && thread.parentUuid() != 0
                    && hops++ < 64) {
                thread = byUuid.get(thread.parentUuid());
            }
            Place place;
            if (thread != null && thread.kind() == PerfettoTrace.TrackKind.THREAD) {
                PerfettoTrace.Track process = processes.get(thread.pid());
                place = new Place(thread.pid(), thread.tid(), deviceIndex(process, thread.pid()));
                if (tr == thread && !thread.name().isEmpty()) {
                    events.metadata("thread_name", thread.pid(), thread.tid(), thread.name());
                }
            } else if (thread != null && thread.kind() == PerfettoTrace.TrackKind.PROCESS) {
                place = new Place(thread.pid(), events.textIdent(tr.name()), deviceIndex(thread, thread.pid()));
            } else if (tr.kind() != PerfettoTrace.TrackKind.COUNTER) {
                // a track of its own, as the profiler's span: a row named after it
                place = new Place(events.textIdent("Spans"), events.textIdent(tr.name()), 0);
            } else {
                continue;
            }
            places.put(tr.uuid(), place);
        }
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

    /** The memory counters' values by time: an allocation's totals, written with its instant. */
    private void memoryCounters() {
        Map<Long, String> names = new HashMap<>();
        for (PerfettoTrace.Track tr : trace.tracks()) {
            if (tr.kind() == PerfettoTrace.TrackKind.COUNTER) {
                names.put(tr.uuid(), tr.name());
            }
        }
        for (PerfettoTrace.Counter c : trace.counters()) {
            String name = names.getOrDefault(c.trackUuid(), "");
            if (name.endsWith(ALLOCATED)) {
                allocated.computeIfAbsent(c.timeNanos(), k -> new ArrayDeque<>()).add(c.value());
            } else if (name.endsWith(RESERVED)) {
                reserved.computeIfAbsent(c.timeNanos(), k -> new ArrayDeque<>()).add(c.value());
            }
        }
    }

    /** Per slice index, the id of a flow it starts or ends (the last one given). */
    private Map<Integer, Long> flows() {
        Map<Integer, Long> of = new HashMap<>();
        List<PerfettoTrace.Flow> list = trace.flows();
        for (PerfettoTrace.Flow f : list) {
            of.put(f.from(), f.id());
            of.put(f.to(), f.id());
        }
        return of;
    }
}
