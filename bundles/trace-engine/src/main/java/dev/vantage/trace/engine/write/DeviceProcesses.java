package dev.vantage.trace.engine.write;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.trace.TraceDevice;

/**
 * The processes and rows of device work. As Kineto, a device's {@code pid} is its index, and its rows are its
 * streams; when a trace has devices of several types, each further type's pids are offset by 100 so they stay
 * apart. Device processes sort below the host process ({@code sort_index} = index + 1,000,000, as Kineto's
 * {@code kExceedMaxPid}), streams in order. An emulated device says so in its process name; a device that gives
 * a {@link TraceDevice#LABEL} shows it there instead, and one that gives a {@link TraceDevice#ROW_NAME} names its
 * rows with it ({@code thread 4242} rather than {@code stream 4242}).
 */
final class DeviceProcesses {

    private static final long SORT_OFFSET = 1_000_000;
    private static final int TYPE_STRIDE = 100;

    private final List<String> types = new ArrayList<>();
    private final Map<String, TraceDevice> devices = new LinkedHashMap<>();
    private final Map<Long, TreeSet<Long>> streams = new LinkedHashMap<>();
    private final Map<Long, String> names = new LinkedHashMap<>();
    private final Map<Long, String> labels = new LinkedHashMap<>();
    private final Map<Long, String> rowNames = new LinkedHashMap<>();

    DeviceProcesses(List<TraceDevice> known) {
        for (TraceDevice d : known) {
            devices.put(d.type() + ":" + d.index(), d);
            if (!types.contains(d.type())) {
                types.add(d.type());
            }
        }
    }

    /** Returns the pid of a device, registering its process. */
    long pid(String type, int index) {
        int t = types.indexOf(type);
        if (t < 0) {
            types.add(type);
            t = types.size() - 1;
        }
        long pid = (long) t * TYPE_STRIDE + index;
        if (!names.containsKey(pid)) {
            TraceDevice d = devices.get(type + ":" + index);
            String name = type.toUpperCase(Locale.ROOT) + " " + index;
            String label = d == null ? "" : d.properties().getOrDefault(TraceDevice.LABEL, "");
            names.put(pid, d != null && d.emulated() ? name + " (emulated)" : label.isEmpty() ? name
                    : name + " (" + label + ")");
            labels.put(pid, name);
            rowNames.put(pid, d == null ? "stream" : d.properties().getOrDefault(TraceDevice.ROW_NAME, "stream"));
            streams.put(pid, new TreeSet<>());
        }
        return pid;
    }

    void stream(long pid, long stream) {
        streams.get(pid).add(stream);
    }

    void writeMetadata(JsonGenerator g, String ts) throws IOException {
        for (Map.Entry<Long, String> e : names.entrySet()) {
            long pid = e.getKey();
            KinetoJsonWriter.metadataEvent(g, "process_name", pid, 0, ts, "name", e.getValue());
            KinetoJsonWriter.metadataEvent(g, "process_labels", pid, 0, ts, "labels", labels.get(pid));
            KinetoJsonWriter.metadataEvent(g, "process_sort_index", pid, 0, ts, "sort_index", SORT_OFFSET + pid);
            for (long stream : streams.get(pid)) {
                KinetoJsonWriter.metadataEvent(g, "thread_name", pid, stream, ts, "name",
                        rowNames.get(pid) + " " + stream);
                KinetoJsonWriter.metadataEvent(g, "thread_sort_index", pid, stream, ts, "sort_index", stream);
            }
        }
    }
}
