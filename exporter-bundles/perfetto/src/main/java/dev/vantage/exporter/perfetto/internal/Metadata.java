package dev.vantage.exporter.perfetto.internal;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

import dev.vantage.profiler.trace.TraceDevice;

/** The trace-wide facts the chrome exporter writes at the top of its JSON, as the JSON text it writes. */
final class Metadata {

    private static final Pattern BACKEND = Pattern.compile("[A-Za-z0-9:_-]+");
    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,18}");

    private Metadata() {
    }

    /**
     * Kineto's {@code distributedInfo}: the backend, rank and world size, and for a run with a process group
     * ({@code distributed_backend} in the metadata) its one default group, as {@code pg_count} and {@code pg_config}.
     */
    static String distributedInfo(Map<String, String> metadata) {
        String rank = number(metadata.get("rank"), 0);
        String worldSize = number(metadata.get("world_size"), 1);
        String backend = metadata.get("distributed_backend");
        boolean group = backend != null && BACKEND.matcher(backend).matches();
        StringBuilder info = new StringBuilder("{\"backend\": \"").append(group ? backend : "none")
                .append("\", \"rank\": ").append(rank).append(", \"world_size\": ").append(worldSize);
        if (group) {
            StringBuilder ranks = new StringBuilder();
            long size = Math.min(Long.parseLong(worldSize), 1 << 16);
            for (long r = 0; r < size; r++) {
                ranks.append(r == 0 ? "" : ", ").append(r);
            }
            info.append(", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\",")
                    .append(" \"backend_config\": \"").append(backend).append("\", \"pg_size\": ").append(worldSize)
                    .append(", \"ranks\": [").append(ranks).append("]}]");
        }
        return info.append('}').toString();
    }

    /** Kineto's {@code deviceProperties}: per device its id, name, type, whether emulated, and its properties. */
    static String deviceProperties(List<TraceDevice> devices) {
        StringBuilder b = new StringBuilder("[");
        for (TraceDevice d : devices) {
            b.append(b.length() == 1 ? "{" : ", {").append("\"id\": ").append(d.index()).append(", \"name\": ");
            Json.quote(b, d.properties().getOrDefault("name", d.type().toUpperCase(Locale.ROOT)));
            Json.quote(b.append(", \"type\": "), d.type());
            b.append(", \"emulated\": ").append(d.emulated());
            for (Map.Entry<String, String> p : new TreeMap<>(d.properties()).entrySet()) {
                if (p.getKey().equals("name")) {
                    continue;
                }
                Json.quote(b.append(", "), p.getKey()).append(": ");
                if (INTEGER.matcher(p.getValue()).matches()) {
                    b.append(Long.parseLong(p.getValue()));
                } else {
                    Json.quote(b, p.getValue());
                }
            }
            b.append('}');
        }
        return b.append(']').toString();
    }

    private static String number(String value, long fallback) {
        return value != null && value.matches("\\d{1,18}") ? value : Long.toString(fallback);
    }
}
