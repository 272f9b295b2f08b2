package dev.vantage.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

import picocli.CommandLine.TypeConversionException;

/**
 * The options of the Vantage agent, as {@code -javaagent:vantage-agent.jar=OPTIONS} gives them: {@code key=value}
 * pairs separated by commas, such as {@code start=startup,profile-dir=/tmp/p,active=20}. The keys are
 * {@code vantage run}'s profile flags without {@code --profile-} ({@code dir}, also {@code profile-dir};
 * {@code name}, {@code activities}, {@code export}, {@code record-shapes}, {@code with-stack}, {@code with-flops},
 * {@code wait}, {@code warmup}, {@code active}, {@code repeat}, {@code skip-first}, {@code sort-by},
 * {@code row-limit}, {@code percentiles}), {@code max-events}, and the agent's own: {@code start} ({@code ondemand},
 * the default, or {@code startup}), {@code duration}, {@code step} (the methods whose top-level calls are steps,
 * {@code com.acme.Api#handle}) and {@code deploy-dir}. A list is separated by {@code +}
 * ({@code activities=CPU+ORT}). A boolean key alone means true ({@code with-stack}).
 *
 * <p>The values are checked with the command line's own converters ({@link Converters}). The pairs themselves are
 * split here rather than by picocli: the agent parses them in the application's {@code premain}, before the
 * application's {@code main}, where building a picocli command costs 150 to 200 ms of the application's start on
 * a two-core machine (measured 2026-11-27), against the agent's start-up budget of 300 ms.
 *
 * <p>What only the platform knows (whether an activity can be recorded, whether an exporter is installed, a sort
 * key of a device) is checked by the agent's bundle once the platform is up. Immutable; thread-safe.
 */
public final class AgentOptions {

    /** When the agent's capture starts. */
    public enum Start {
        /** Only when asked: {@code vantage profile <pid> start}, the {@code .cfg} drop or JMX. */
        ONDEMAND,
        /** At once, with the options' schedule, until its end, {@code duration} or the application's exit. */
        STARTUP
    }

    /** A method whose top-level calls are steps: {@code com.acme.Api#handle}. */
    public record StepMethod(String className, String method) {

        /** Returns {@code class#method}. */
        @Override
        public String toString() {
            return className + "#" + method;
        }
    }

    /** The keys that only a capture started at start-up takes. */
    private static final List<String> STARTUP_KEYS = List.of("duration", "dir", "name", "activities", "export",
            "record-shapes", "with-stack", "with-flops", "wait", "warmup", "active", "repeat", "skip-first",
            "sort-by", "row-limit", "percentiles", "max-events");
    /** Every key, in the order a refusal lists them. */
    public static final List<String> KEYS;
    private static final List<String> BOOLEANS = List.of("record-shapes", "with-stack", "with-flops",
            "percentiles");
    private static final Pattern JAVA_NAME =
            Pattern.compile("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}]*");

    static {
        List<String> keys = new ArrayList<>(List.of("start", "step", "deploy-dir"));
        keys.addAll(STARTUP_KEYS);
        KEYS = List.copyOf(keys);
    }

    private final String text;
    private final Map<String, String> given;
    private final Start start;
    private final long durationMillis;
    private final Path dir;
    private final String name;
    private final List<String> activities;
    private final List<String> exports;
    private final boolean recordShapes;
    private final boolean withStack;
    private final boolean withFlops;
    private final Integer wait;
    private final Integer warmup;
    private final Integer active;
    private final Integer repeat;
    private final Integer skipFirst;
    private final String sortBy;
    private final int rowLimit;
    private final boolean percentiles;
    private final Integer maxEvents;
    private final List<StepMethod> steps;
    private final Path deployDir;

    private AgentOptions(String text, Map<String, String> given, Map<String, String> env) throws UsageException {
        this.text = text;
        this.given = given;
        String s = given.getOrDefault("start", "ondemand");
        this.start = switch (s) {
            case "ondemand" -> Start.ONDEMAND;
            case "startup" -> Start.STARTUP;
            default -> throw new UsageException("start=" + s + ": '" + s + "' is not ondemand or startup");
        };
        if (start == Start.ONDEMAND) {
            for (String key : STARTUP_KEYS) {
                if (given.containsKey(key)) {
                    throw new UsageException(key + "=" + given.get(key) + " needs start=startup (an on-demand capture"
                            + " takes its window and formats from 'vantage profile <pid> start')");
                }
            }
        }
        this.durationMillis = given.containsKey("duration") ? convert("duration", Converters::millis) : 0;
        Path d = given.containsKey("dir") ? convert("dir", Converters::path) : null;
        try {
            this.dir = ProfileDirectory.resolve(d, env);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        this.name = given.containsKey("name") ? convert("name", Converters::fileName) : null;
        this.activities = list("activities");
        this.exports = given.containsKey("export") ? list("export") : List.of("chrome");
        this.recordShapes = bool("record-shapes", true);
        this.withStack = bool("with-stack", false);
        this.withFlops = bool("with-flops", false);
        this.wait = number("wait", 0);
        this.warmup = number("warmup", 0);
        this.active = number("active", 1);
        this.repeat = number("repeat", 0);
        this.skipFirst = number("skip-first", 0);
        this.sortBy = given.get("sort-by");
        Integer limit = number("row-limit", -1);
        this.rowLimit = limit == null ? 20 : limit;
        this.percentiles = bool("percentiles", false);
        this.maxEvents = number("max-events", 1);
        this.steps = stepMethods();
        Path deploy = given.containsKey("deploy-dir") ? convert("deploy-dir", Converters::path) : null;
        this.deployDir = deploy == null ? null : deploy.toAbsolutePath().normalize();
    }

    /**
     * Parses the agent's options.
     *
     * @param text what follows {@code =} in {@code -javaagent:vantage-agent.jar=}, or null or empty for none
     * @param env the application's environment ({@code VANTAGE_PROFILER_DIR} stands in for {@code dir})
     * @return the options, every value checked
     * @throws UsageException for an unknown key, a key given twice, a bad value or a key {@code start=ondemand}
     *     does not take; the message is one line naming it
     */
    public static AgentOptions parse(String text, Map<String, String> env) throws UsageException {
        Objects.requireNonNull(env, "env");
        String all = text == null ? "" : text.strip();
        Map<String, String> given = new LinkedHashMap<>();
        if (!all.isEmpty()) {
            for (String pair : all.split(",", -1)) {
                String p = pair.strip();
                if (p.isEmpty()) {
                    throw new UsageException("an empty option in '" + all + "'; options are key=value pairs separated"
                            + " by commas");
                }
                int eq = p.indexOf('=');
                String key = (eq < 0 ? p : p.substring(0, eq)).strip();
                String value = eq < 0 ? null : p.substring(eq + 1).strip();
                if (!KEYS.contains(key)) {
                    if (key.equals("profile-dir")) {
                        key = "dir";
                    } else if (key.startsWith("profile-") && KEYS.contains(key.substring("profile-".length()))) {
                        key = key.substring("profile-".length());
                    } else {
                        throw new UsageException("unknown option '" + key + "'" + suggestion(key) + "; known: "
                                + String.join(", ", KEYS));
                    }
                }
                if (value == null) {
                    if (!BOOLEANS.contains(key)) {
                        throw new UsageException("option '" + key + "' needs a value: " + key + "=...");
                    }
                    value = "true";
                }
                if (given.put(key, value) != null) {
                    throw new UsageException("option '" + key + "' is given twice");
                }
            }
        }
        return new AgentOptions(all, given, env);
    }

    private interface Conversion<T> {
        T convert(String text);
    }

    private <T> T convert(String key, Conversion<T> conversion) throws UsageException {
        String value = given.get(key);
        try {
            return conversion.convert(value);
        } catch (TypeConversionException e) {
            throw new UsageException(key + "=" + value + ": " + e.getMessage());
        }
    }

    private Integer number(String key, long min) throws UsageException {
        if (!given.containsKey(key)) {
            return null;
        }
        return (int) (long) convert(key, t -> Converters.wholeNumber(t, min, Integer.MAX_VALUE));
    }

    private boolean bool(String key, boolean otherwise) throws UsageException {
        String value = given.get(key);
        if (value == null) {
            return otherwise;
        }
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new UsageException(key + "=" + value + ": '" + value + "' is not true or false");
        };
    }

    private List<String> list(String key) throws UsageException {
        String value = given.get(key);
        if (value == null) {
            return List.of();
        }
        List<String> items = new ArrayList<>();
        for (String item : value.split("\\+", -1)) {
            if (item.isBlank()) {
                throw new UsageException(key + "=" + value + ": an empty item; a list is separated by '+', such as "
                        + key + "=" + (key.equals("export") ? "chrome+csv" : "CPU+ORT"));
            }
            items.add(item.strip());
        }
        return List.copyOf(items);
    }

    private List<StepMethod> stepMethods() throws UsageException {
        List<StepMethod> methods = new ArrayList<>();
        for (String item : list("step")) {
            int hash = item.indexOf('#');
            String cls = hash < 0 ? "" : item.substring(0, hash);
            String method = hash < 0 ? "" : item.substring(hash + 1);
            boolean classOk = !cls.isEmpty() && java.util.Arrays.stream(cls.split("\\.", -1))
                    .allMatch(part -> JAVA_NAME.matcher(part).matches());
            if (!classOk || !JAVA_NAME.matcher(method).matches()) {
                throw new UsageException("step=" + given.get("step") + ": '" + item + "' is not class#method, such as"
                        + " com.acme.Api#handle");
            }
            methods.add(new StepMethod(cls, method));
        }
        return List.copyOf(methods);
    }

    /** A known key within two edits of a misspelled one, as {@code (did you mean 'start'?)}, else nothing. */
    private static String suggestion(String key) {
        String best = null;
        int distance = 3;
        for (String k : KEYS) {
            int d = distance(key.toLowerCase(Locale.ROOT), k);
            if (d < distance) {
                distance = d;
                best = k;
            }
        }
        return best == null ? "" : " (did you mean '" + best + "'?)";
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }

    /** Returns the options as given (stripped); empty for none. */
    public String text() {
        return text;
    }

    /** Returns whether a key was given, under its short name ({@code dir} for {@code profile-dir}). */
    public boolean given(String key) {
        return given.containsKey(key);
    }

    /** Returns when the capture starts. */
    public Start start() {
        return start;
    }

    /** Returns how long a capture started at start-up lasts at most, in milliseconds; 0 for no limit. */
    public long durationMillis() {
        return durationMillis;
    }

    /** Returns where traces go: {@code dir}, else {@code $VANTAGE_PROFILER_DIR}, else {@code ./vantage_profiles}. */
    public Path dir() {
        return dir;
    }

    /** Returns the traces' base name, or null for the default. */
    public String name() {
        return name;
    }

    /** Returns the activities asked for, as given; empty for the default (CPU and every installed device's). */
    public List<String> activities() {
        return activities;
    }

    /** Returns the trace formats to write; {@code chrome} by default. */
    public List<String> exports() {
        return exports;
    }

    /** Returns whether input shapes are recorded (on by default). */
    public boolean recordShapes() {
        return recordShapes;
    }

    /** Returns whether Java stacks are recorded. */
    public boolean withStack() {
        return withStack;
    }

    /** Returns whether FLOPs are counted. */
    public boolean withFlops() {
        return withFlops;
    }

    /** Returns whether any of the schedule's keys was given. */
    public boolean scheduleGiven() {
        return wait != null || warmup != null || active != null || repeat != null || skipFirst != null;
    }

    /**
     * Returns the schedule's numbers under torch's names ({@code wait}, {@code warmup}, {@code active},
     * {@code repeat}, {@code skip_first}): those given, {@code vantage run}'s defaults for the rest.
     */
    public Map<String, Integer> schedule() {
        Map<String, Integer> n = new LinkedHashMap<>();
        n.put("wait", wait == null ? 0 : wait);
        n.put("warmup", warmup == null ? RunCommand.DEFAULT_WARMUP : warmup);
        n.put("active", active == null ? RunCommand.DEFAULT_ACTIVE : active);
        n.put("repeat", repeat == null ? RunCommand.DEFAULT_REPEAT : repeat);
        n.put("skip_first", skipFirst == null ? 0 : skipFirst);
        return n;
    }

    /** Returns the table's sort key as given, or null for the default. */
    public String sortBy() {
        return sortBy;
    }

    /** Returns the table's row limit, -1 for all; 20 by default. */
    public int rowLimit() {
        return rowLimit;
    }

    /** Returns whether the table has p50, p99 and max columns. */
    public boolean percentiles() {
        return percentiles;
    }

    /** Returns the window's event cap, or null for the profiler's. */
    public Integer maxEvents() {
        return maxEvents;
    }

    /** Returns the methods whose top-level calls are steps; empty for the default (each outermost recorded call). */
    public List<StepMethod> steps() {
        return steps;
    }

    /** Returns the agent's deploy directory as given, absolute; null for the default. */
    public Path deployDir() {
        return deployDir;
    }
}
