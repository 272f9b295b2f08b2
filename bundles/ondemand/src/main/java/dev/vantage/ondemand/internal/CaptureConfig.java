package dev.vantage.ondemand.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.CaptureRequest;

/**
 * Capture requests from text: the MBean's {@code key=value} options and the keys of an on-demand configuration
 * file, which may be Vantage's ({@code duration}, {@code iterations}, {@code start_iteration}, {@code activities},
 * {@code export}, {@code dir}, {@code name}) or Kineto's on-demand keys ({@code ACTIVITIES_DURATION_MSECS},
 * {@code ACTIVITIES_DURATION_SECS}, {@code ACTIVITIES_ITERATIONS}, {@code PROFILE_START_ITERATION},
 * {@code ACTIVITIES_LOG_FILE}: the trace's path, which gives the directory and the name).
 */
final class CaptureConfig {

    private CaptureConfig() {
    }

    /**
     * Parses the MBean's options.
     *
     * @throws IllegalArgumentException for a string that is not {@code key=value}, an unknown key or a bad value
     */
    static CaptureRequest parse(String[] options) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (String o : options == null ? new String[0] : options) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("an option is key=value, not '" + o + "'");
            }
            map.put(o.substring(0, eq).trim(), o.substring(eq + 1).trim());
        }
        return request(map, "attach", "a JMX client", false);
    }

    /**
     * Reads a configuration's properties (keys FileInstall and Configuration Admin add are skipped).
     *
     * @param file the file the configuration came from, for {@code requested_by}
     * @throws IllegalArgumentException for an unknown key or a bad value
     */
    static CaptureRequest config(Map<String, Object> properties, String file) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        properties.forEach((k, v) -> {
            boolean framework = k.startsWith("service.") || k.startsWith("felix.") || k.startsWith("component.")
                    || k.startsWith("osgi.") || k.startsWith(".");
            if (!framework) {
                map.put(k, String.valueOf(v).trim());
            }
        });
        return request(map, "config", "file " + file, true);
    }

    private static CaptureRequest request(Map<String, String> map, String trigger, String requestedBy,
            boolean fromFile) {
        long duration = 0;
        int iterations = 0;
        long startIteration = 0;
        Set<Activity> activities = new TreeSet<>();
        List<String> exports = new ArrayList<>();
        Path dir = null;
        String name = null;
        for (Map.Entry<String, String> e : map.entrySet()) {
            String v = e.getValue();
            switch (e.getKey()) {
                case "duration", "ACTIVITIES_DURATION_MSECS" -> duration = number(e.getKey(), v);
                case "ACTIVITIES_DURATION_SECS" -> duration = Math.multiplyExact(number(e.getKey(), v), 1000L);
                case "iterations", "ACTIVITIES_ITERATIONS" -> iterations = Math.toIntExact(number(e.getKey(), v));
                case "start_iteration", "PROFILE_START_ITERATION" -> startIteration = number(e.getKey(), v);
                case "activities" -> {
                    for (String a : split(v)) {
                        activities.add(Activity.parse(a));
                    }
                }
                case "export" -> exports.addAll(split(v));
                case "dir" -> dir = absolute(e.getKey(), v);
                case "name" -> name = v;
                case "ACTIVITIES_LOG_FILE" -> {
                    Path file = absolute(e.getKey(), v);
                    dir = file.getParent();
                    name = file.getFileName().toString().replaceFirst("(\\.pt)?(\\.trace)?\\.json(\\.gz)?$", "");
                }
                case "trigger" -> trigger = v;
                case "requested_by" -> requestedBy = v;
                default -> throw new IllegalArgumentException("unknown on-demand option '" + e.getKey() + "'; known:"
                        + " duration, iterations, start_iteration, activities, export, dir, name"
                        + (fromFile ? ", and Kineto's ACTIVITIES_DURATION_MSECS, ACTIVITIES_DURATION_SECS,"
                        + " ACTIVITIES_ITERATIONS, PROFILE_START_ITERATION, ACTIVITIES_LOG_FILE" : ", trigger,"
                        + " requested_by"));
            }
        }
        if (startIteration > 0 && iterations == 0) {
            // Kineto's start iteration alone records its default of one iteration
            iterations = 1;
        }
        return new CaptureRequest(duration, iterations, startIteration, activities, exports, dir, name, trigger,
                requestedBy);
    }

    private static long number(String key, String value) {
        try {
            long n = Long.parseLong(value);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number of 0 or more, not '" + value + "'");
        }
    }

    private static List<String> split(String value) {
        List<String> out = new ArrayList<>();
        for (String s : value.split("[,\\s]+")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }

    private static Path absolute(String key, String value) {
        Path p = Path.of(value);
        if (!p.isAbsolute()) {
            throw new IllegalArgumentException(key + " must be an absolute path, not '" + value + "'");
        }
        return p.normalize();
    }
}
