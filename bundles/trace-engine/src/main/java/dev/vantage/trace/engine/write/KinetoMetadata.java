package dev.vantage.trace.engine.write;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import dev.vantage.profiler.trace.TraceDevice;

/**
 * The trace-wide facts Kineto writes at the top of its JSON ({@code distributedInfo}, {@code deviceProperties}) as
 * JSON text, and the rule for which string values it writes as numbers. One place for every format that carries
 * them: the Kineto JSON writer writes the text as it is, and the Perfetto exporter puts it into its trace's
 * annotations. Needs no JSON library, so a format without Jackson can use it.
 */
public final class KinetoMetadata {

    private static final Pattern BACKEND = Pattern.compile("[A-Za-z0-9:_-]+");
    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,18}");
    /** A JSON number with a fraction, an exponent or both, as a device writes its fractional facts. */
    private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9]\\d*)(\\.\\d+([eE][+-]?\\d+)?|[eE][+-]?\\d+)");
    private static final Pattern COUNT = Pattern.compile("\\d{1,18}");

    /** Keys Kineto writes as strings even when they look like numbers ({@code "Process Group Name": "0"}). */
    private static final Set<String> TEXT_KEYS = Set.of("Process Group Name", "Process Group Description",
            "Process Group Ranks", "Collective name", "dtype");

    private KinetoMetadata() {
    }

    /**
     * Kineto's {@code distributedInfo}: the backend, rank and world size, and for a run with a process group
     * ({@code distributed_backend} in the metadata) its one default group, as {@code pg_count} and
     * {@code pg_config}. HTA finds the rank with the regex {@code "rank":\s+(\d+)}: the space after each colon
     * is part of the format.
     */
    public static String distributedInfo(Map<String, String> metadata) {
        String rank = count(metadata.get("rank"), 0);
        String worldSize = count(metadata.get("world_size"), 1);
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

    /**
     * Kineto's {@code deviceProperties}: per device its id, name, type, whether it is emulated, and its
     * properties (numbers where {@link #isNumber} says so), in key order.
     */
    public static String deviceProperties(List<TraceDevice> devices) {
        StringBuilder b = new StringBuilder("[");
        for (TraceDevice d : devices) {
            b.append(b.length() == 1 ? "{" : ", {").append("\"id\": ").append(d.index()).append(", \"name\": ");
            quote(b, d.properties().getOrDefault("name", d.type().toUpperCase(Locale.ROOT)));
            quote(b.append(", \"type\": "), d.type());
            b.append(", \"emulated\": ").append(d.emulated());
            for (Map.Entry<String, String> p : new TreeMap<>(d.properties()).entrySet()) {
                if (p.getKey().equals("name")) {
                    continue;
                }
                quote(b.append(", "), p.getKey()).append(": ");
                if (isNumber(p.getKey(), p.getValue())) {
                    b.append(Long.parseLong(p.getValue()));
                } else {
                    quote(b, p.getValue());
                }
            }
            b.append('}');
        }
        return b.append(']').toString();
    }

    /** Whether Kineto writes this value of this key as a JSON number: an integer, unless the key is a name. */
    public static boolean isNumber(String key, String value) {
        return !TEXT_KEYS.contains(key) && INTEGER.matcher(value).matches();
    }

    /**
     * Whether this value of this key is a JSON number with a fraction or an exponent ({@code blocks per SM},
     * {@code memory bandwidth (GB/s)}) that a writer keeps a number, unless the key is a name.
     */
    public static boolean isDecimal(String key, String value) {
        return !TEXT_KEYS.contains(key) && value.length() <= 32 && DECIMAL.matcher(value).matches();
    }

    /** Appends {@code s} as a JSON string literal. */
    public static StringBuilder quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"');
    }

    private static String count(String value, long fallback) {
        return value != null && COUNT.matcher(value).matches() ? value : Long.toString(fallback);
    }
}
