package dev.vantage.exporter.perfetto.compare;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads a Chrome trace JSON file (Kineto's layout, plain or {@code .gz}) with Jackson into an {@link ExportModel}:
 * rows from the {@code process_name} and {@code thread_name} metadata, complete events as slices, {@code [memory]}
 * and {@code [OutOfMemory]} instants, and flows bound as the chrome exporter writes them (a flow event right after
 * the slice it belongs to), start and end paired by category and id. The profiler's span ({@code pid "Spans"}) and global instants are left out.
 */
public final class ChromeTraceModel {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ChromeTraceModel() {
    }

    public static ExportModel read(Path file) throws IOException {
        JsonNode root;
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            root = JSON.readTree(in);
        }
        ExportModel model = new ExportModel();
        long base = root.path("baseTimeNanoseconds").asLong();
        Map<Long, String> processes = new HashMap<>();
        Map<String, String> threads = new HashMap<>();
        for (JsonNode e : root.path("traceEvents")) {
            if (!"M".equals(e.path("ph").asText())) {
                continue;
            }
            if (e.path("name").asText().equals("process_name")) {
                processes.put(e.path("pid").asLong(), e.path("args").path("name").asText());
            } else if (e.path("name").asText().equals("thread_name")) {
                threads.put(e.path("pid").asLong() + "/" + e.path("tid").asLong(), e.path("args").path("name").asText());
            }
        }
        Map<String, ExportModel.Event> lastOnThread = new HashMap<>();
        Map<String, String> flowStarts = new HashMap<>();
        Map<String, String> flowEnds = new HashMap<>();
        for (JsonNode e : root.path("traceEvents")) {
            String ph = e.path("ph").asText();
            if (!e.path("pid").isNumber()) {
                continue;
            }
            long pid = e.path("pid").asLong();
            long tid = e.path("tid").asLong();
            String thread = threads.getOrDefault(pid + "/" + tid, "tid " + tid);
            String row = processes.getOrDefault(pid, "pid " + pid) + " / " + thread;
            switch (ph) {
                case "X", "i" -> {
                    ExportModel.Event ev = new ExportModel.Event(row, e.path("name").asText(), e.path("cat").asText(),
                            base + nanos(e.path("ts")), ph.equals("X") ? nanos(e.path("dur")) : 0, ph.equals("i"),
                            args(e.path("args")));
                    model.add(ev);
                    lastOnThread.put(pid + "/" + tid, ev);
                    if (ev.name().equals("[memory]")) {
                        JsonNode a = e.path("args");
                        model.memory.add(new ExportModel.MemoryTotals(ev.startNanos(),
                                a.path("Total Allocated").asLong(), a.path("Total Reserved").asLong()));
                    }
                }
                case "s", "f" -> {
                    ExportModel.Event at = lastOnThread.get(pid + "/" + tid);
                    String key = e.path("cat").asText() + ":" + e.path("id").asLong();
                    // paired by id whatever their order in the file: a viewer orders flow events by time
                    (ph.equals("s") ? flowStarts : flowEnds).put(key, at.key());
                }
                default -> {
                }
            }
        }
        flowStarts.forEach((key, from) -> {
            String to = flowEnds.get(key);
            if (to != null) {
                model.flows.add(new ExportModel.Flow(key.substring(0, key.indexOf(':')), from, to));
            }
        });
        Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            if (f.getValue().isValueNode() && !f.getKey().equals("traceName")) {
                model.metadata.put(f.getKey(), f.getValue().asText());
            }
        }
        return model;
    }

    /** Microseconds with three decimals as exact nanoseconds. */
    private static long nanos(JsonNode micros) {
        return new BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }

    /** Arguments as plain values: integers as Long, text as String, arrays as their JSON text. */
    static Map<String, Object> args(JsonNode args) {
        Map<String, Object> map = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = args.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> a = it.next();
            JsonNode v = a.getValue();
            map.put(a.getKey(), v.isIntegralNumber() ? (Object) v.asLong() : v.isTextual() ? v.asText() : v);
        }
        return map;
    }
}
