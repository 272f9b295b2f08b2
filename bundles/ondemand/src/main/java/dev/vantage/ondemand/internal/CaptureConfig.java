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
 *
 * <p>Provenance is the platform's: how a capture was asked for ({@code trigger}) and by whom ({@code requested_by})
 * come from where the request arrived, never from its options. A configuration file that sets either is refused;
 * what a JMX client says about itself ({@code requested_by}) is kept only as its claim, labelled so, after what the
 * platform saw of the caller.
 */
final class CaptureConfig {

    private CaptureConfig() {
    }

    /**
     * Parses the MBean's options.
     *
     * @param caller what the platform saw of the caller ({@link Callers#current()})
     * @throws IllegalArgumentException for a string that is not {@code key=value}, an unknown key or a bad value
     */
    static CaptureRequest parse(String[] options, String caller) {
        Map<String, String> map = new java.util.LinkedHashMap<>();
        for (String o : options == null ? new String[0] : options) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("an option is key=value, not '" + o + "'");
            }
            map.put(o.substring(0, eq).trim(), o.substring(eq + 1).trim());
        }
        // a client of an earlier release says trigger=attach, which is what the platform writes anyway
        String trigger = map.remove("trigger");
        if (trigger != null && !trigger.equals("attach")) {
            throw new IllegalArgumentException("trigger is the platform's to write (attach, for a JMX client), not '"
                    + trigger + "'");
        }
        String claim = map.remove("requested_by");
        String requestedBy = claim == null || claim.isBlank() ? caller
                : caller + "; the client says: " + claim.replaceAll("\\p{Cntrl}", " ");
        try {
            return request(map, "attach", requestedBy, false);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(escapeControls(e.getMessage()), e);
        }
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
        try {
            return request(map, "config", "file " + file, true);
        } catch (IllegalArgumentException e) {
            // the bundle logs the refusal as one line: a key or value with a line break in it is named escaped
            throw new IllegalArgumentException(escapeControls(e.getMessage()), e);
        }
    }

    /** The text with its line breaks and other control characters written as Java escapes. */
    static String escapeControls(String text) {
        StringBuilder out = new StringBuilder();
        text.chars().forEach(c -> out.append(c == '\n' ? "\\n" : c == '\r' ? "\\r"
                : Character.isISOControl(c) ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return out.toString();
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
                case "duration", "ACTIVITIES_DURATION_MSECS" -> duration = number(e.getKey(), v, Long.MAX_VALUE);
                case "ACTIVITIES_DURATION_SECS" -> duration = number(e.getKey(), v, Long.MAX_VALUE / 1000) * 1000;
                case "iterations", "ACTIVITIES_ITERATIONS" -> iterations = (int) number(e.getKey(), v,
                        Integer.MAX_VALUE);
                case "start_iteration", "PROFILE_START_ITERATION" -> startIteration = number(e.getKey(), v,
                        Long.MAX_VALUE);
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
                    // the root ('/', '/.', '/..') has no file name; a name that is only the suffixes is no name
                    String base = file.getFileName() == null ? ""
                            : file.getFileName().toString().replaceFirst("(\\.pt)?(\\.trace)?\\.json(\\.gz)?$", "");
                    if (base.isEmpty()) {
                        throw new IllegalArgumentException(e.getKey() + " must name the trace's file, as"
                                + " /var/log/trace/run7.pt.trace.json; '" + v + "' gives no file name");
                    }
                    dir = file.getParent();
                    name = base;
                }
                case "trigger", "requested_by" -> throw new IllegalArgumentException(e.getKey() + " is written by"
                        + " the platform, from where the request came; a configuration file cannot set it");
                default -> throw new IllegalArgumentException("unknown on-demand option '" + e.getKey() + "'; known:"
                        + " duration, iterations, start_iteration, activities, export, dir, name"
                        + (fromFile ? ", and Kineto's ACTIVITIES_DURATION_MSECS, ACTIVITIES_DURATION_SECS,"
                        + " ACTIVITIES_ITERATIONS, PROFILE_START_ITERATION, ACTIVITIES_LOG_FILE" : ""));
            }
        }
        if (startIteration > 0 && iterations == 0) {
            // Kineto's start iteration alone records its default of one iteration
            iterations = 1;
        }
        return new CaptureRequest(duration, iterations, startIteration, activities, exports, dir, name, trigger,
                requestedBy);
    }

    private static long number(String key, String value, long max) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 0 || n > max) {
            throw new IllegalArgumentException(key + " must be a whole number from 0 to " + max + ", not '" + value
                    + "'");
        }
        return n;
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
