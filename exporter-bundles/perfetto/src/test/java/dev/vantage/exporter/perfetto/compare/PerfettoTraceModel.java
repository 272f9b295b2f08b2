package dev.vantage.exporter.perfetto.compare;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.perfetto.format.PerfettoTrace;
import dev.vantage.perfetto.format.PerfettoTraceReader;

/**
 * Reads a {@code .pftrace} with {@link PerfettoTraceReader} (the classes generated from the schema) into an
 * {@link ExportModel}: a thread track's row is its process's name and its thread name; a child track of a thread
 * (a lane for overlapping slices) belongs to the thread's row; the profiler's span track is left out. Flows get
 * their category back from the high bits of their ids; the memory totals come from the counter tracks; a slice's
 * correlation id is Kineto's {@code External id}, device work's track its {@code device} and {@code stream}, and
 * the memory counters' values at an allocation its {@code Total Allocated} and {@code Total Reserved}.
 */
public final class PerfettoTraceModel {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long FWDBWD = 1L << 62;
    private static final long AC2G = 2L << 62;

    private PerfettoTraceModel() {
    }

    public static ExportModel read(Path file) throws IOException {
        return of(PerfettoTraceReader.read(file));
    }

    public static ExportModel of(PerfettoTrace trace) throws IOException {
        if (!trace.problems().isEmpty()) {
            throw new AssertionError("the reader found problems: " + trace.problems());
        }
        ExportModel model = new ExportModel();
        model.statedParents = new HashMap<>();
        Map<Long, String> processNames = new HashMap<>();
        for (PerfettoTrace.Track t : trace.tracks()) {
            if (t.kind() == PerfettoTrace.TrackKind.PROCESS) {
                processNames.put(t.pid(), t.name());
            }
        }
        Map<Long, String> rows = new HashMap<>();
        for (PerfettoTrace.Track t : trace.tracks()) {
            if (t.kind() == PerfettoTrace.TrackKind.THREAD) {
                String thread = t.name().isEmpty() ? "tid " + t.tid() : t.name();
                rows.put(t.uuid(), processNames.getOrDefault(t.pid(), "pid " + t.pid()) + " / " + thread);
            }
        }
        for (PerfettoTrace.Track t : trace.tracks()) {
            if (t.kind() == PerfettoTrace.TrackKind.CUSTOM && rows.containsKey(t.parentUuid())) {
                rows.put(t.uuid(), rows.get(t.parentUuid()));
                model.splitRows.add(rows.get(t.parentUuid()));
            }
        }
        Map<Long, String> counterNames = new HashMap<>();
        for (PerfettoTrace.Track t : trace.tracks()) {
            if (t.kind() == PerfettoTrace.TrackKind.COUNTER) {
                counterNames.put(t.uuid(), t.name());
            }
        }
        // a memory event writes its allocated and then its reserved total, at the same time, per device
        Map<String, Long> allocated = new HashMap<>();
        for (PerfettoTrace.Counter c : trace.counters()) {
            String name = counterNames.getOrDefault(c.trackUuid(), "");
            if (name.endsWith(" memory allocated")) {
                allocated.put(name.substring(0, name.length() - 10) + "@" + c.timeNanos(), (long) c.value());
            } else if (name.endsWith(" memory reserved")) {
                Long a = allocated.remove(name.substring(0, name.length() - 9) + "@" + c.timeNanos());
                if (a != null) {
                    model.memory.add(new ExportModel.MemoryTotals(c.timeNanos(), a, (long) c.value()));
                }
            }
        }
        Map<Long, ExportModel.MemoryTotals> totalsAt = new HashMap<>();
        model.memory.forEach(m -> totalsAt.put(m.timeNanos(), m));
        Map<Long, Long> devicePids = new HashMap<>();
        for (PerfettoTrace.Track t : trace.tracks()) {
            if (t.kind() == PerfettoTrace.TrackKind.PROCESS && !t.labels().contains("CPU")) {
                devicePids.put(t.pid(), t.pid());
            }
        }
        ExportModel.Event[] events = new ExportModel.Event[trace.slices().size()];
        for (PerfettoTrace.Slice s : trace.slices()) {
            String row = rows.get(s.trackUuid());
            if (row == null) {
                continue;
            }
            Map<String, Object> args = new LinkedHashMap<>();
            if (s.correlationId() >= 0) {
                args.put("External id", s.correlationId());
            }
            args.putAll(s.args());
            PerfettoTrace.Track track = trace.track(s.trackUuid());
            if (track.kind() == PerfettoTrace.TrackKind.CUSTOM && track.parentUuid() != 0) {
                track = trace.track(track.parentUuid());
            }
            if (track.kind() == PerfettoTrace.TrackKind.THREAD && devicePids.containsKey(track.pid())) {
                // device work: its device (the chrome exporter's pid is the index, +100 per further type) and
                // stream are its track
                args.put("device", track.pid() % 100);
                args.put("stream", track.tid());
            }
            if (s.name().equals("[memory]") && totalsAt.containsKey(s.startNanos())) {
                args.put("Total Allocated", totalsAt.get(s.startNanos()).allocated());
                args.put("Total Reserved", totalsAt.get(s.startNanos()).reserved());
            }
            for (String json : List.of("Input Dims", "Input type")) {
                if (args.get(json) instanceof String text) {
                    args.put(json, JSON.readTree(text));
                }
            }
            ExportModel.Event e = new ExportModel.Event(row, s.name(), s.category(), s.startNanos(),
                    s.durationNanos(), s.instant(), args);
            events[s.index()] = e;
            model.add(e);
            if (s.parent() >= 0 && events[s.parent()] != null) {
                model.statedParents.put(e.key(), events[s.parent()].key());
            }
        }
        for (PerfettoTrace.Flow f : trace.flows()) {
            String category = (f.id() & AC2G) == AC2G ? "ac2g" : (f.id() & FWDBWD) == FWDBWD ? "fwdbwd" : "?";
            if (events[f.from()] != null && events[f.to()] != null) {
                model.flows.add(new ExportModel.Flow(category, events[f.from()].key(), events[f.to()].key()));
            }
        }
        model.metadata.putAll(trace.attributes());
        return model;
    }
}
