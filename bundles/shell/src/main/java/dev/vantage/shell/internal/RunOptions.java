package dev.vantage.shell.internal;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.api.SortKey;

/**
 * The flags of {@code vantage run <workload>}, parsed and checked before any work starts. Profiling flags follow
 * the cache-dit convention ({@code --profile}, {@code --profile-dir}, ...), and need {@code --profile}.
 */
final class RunOptions {

    String workload;
    int steps = 10;
    long seed;
    String device = "cpu";
    int batchSize;
    int threads;
    String optimizer = "";
    boolean profile;
    String profileName;
    Path profileDir;
    /** The activities asked for; null for cache-dit's default, CPU and the run device's activity. */
    Set<Activity> activities;
    /** Whether {@code GPU} was asked for: cache-dit's name for the activity of the device the run is on. */
    boolean deviceActivity;
    List<String> exports = List.of("chrome");
    /** The table's order; null for the default: the profiled device's self time, else self CPU time. */
    SortKey sortBy;
    /** Whether the default order follows a runtime device's time (ort) when that device recorded work. */
    boolean sortByRecordedDevice;
    int rowLimit = 20;
    Integer rank;
    Integer worldSize;
    boolean recordShapes = true;
    boolean withStack;
    boolean withFlops;
    boolean percentiles;
    Integer waitSteps;
    Integer warmupSteps;
    Integer activeSteps;
    Integer repeat;
    Integer skipFirst;
    Long maxEvents;
    /** The cap on the run device's memory in bytes, or null for none. */
    Long deviceMemory;
    /** Where to write the run device's memory snapshot, or null for none. */
    Path memorySnapshot;
    boolean trackMemory;
    /** Whether a training workload trains data-parallel over the ranks a launch started. */
    boolean ddp;
    /** The model file a model workload runs ({@code --model}), or null. */
    Path model;
    /** The sequence length asked for ({@code --seq-len}), or 0 for the workload's own. */
    int seqLen;
    /** The input shapes given by name ({@code --input NAME=DIMS}), in the order given. */
    Map<String, long[]> inputs = new java.util.LinkedHashMap<>();

    /** Every sort key, as the help lists them: wrapped, indented under the flag's description. */
    private static String sortKeys() {
        StringBuilder all = new StringBuilder();
        StringBuilder line = new StringBuilder("                            ");
        SortKey[] keys = SortKey.values();
        for (int i = 0; i < keys.length; i++) {
            String word = keys[i].torchName() + (i < keys.length - 1 ? "," : "");
            if (line.length() + 1 + word.length() > 110) {
                all.append(line).append('\n');
                line = new StringBuilder("                            ");
            }
            line.append(line.toString().isBlank() ? "" : " ").append(word);
        }
        return all.append(line).toString();
    }

    static final String HELP = String.join("\n",
            "usage: vantage run <workload> [flags]",
            "",
            "Runs a workload, optionally profiling it.",
            "",
            "  --steps N                 steps to run (default 10)",
            "  --seed N                  seed for generated data (default 0)",
            "  --device TYPE             device to run on: cpu, npu, spyre or mps when installed (default cpu)",
            "  --batch-size N            samples per step (default: the workload's own)",
            "  --optimizer NAME          sgd or adam, for training workloads (default: the workload's own)",
            "  --threads N               threads of a parallel workload such as parallel-infer (default 4)",
            "  --model FILE              the model a model workload runs, such as an .onnx file for 'onnx'",
            "  --seq-len N               sequence length of a text model's inputs (default: the workload's own)",
            "  --input NAME=DIMS ...     shape of a model input, such as input_ids=1x128 (or 1,128); repeatable",
            "  --profile                 record a profile and write traces",
            "  --profile-name NAME       base name of the trace files (default <workload>-<date>-<time>)",
            "  --profile-dir DIR         where traces go (default $VANTAGE_PROFILER_DIR, else ./vantage_profiles)",
            "  --profile-activities A..  what to record: CPU, MEM, GPU (the run device's activity) or a device's by",
            "                            name: NPU, SPYRE, MPS, ORT or a plugin's (default CPU, the run device's, and",
            "                            that of a device that is no tensor backend, such as ORT, on any device)",
            "  --profile-export F..      trace formats to write (default chrome); see 'vantage exporters'",
            "  --profile-sort-by KEY     table order (default self_device_time_total when a device is profiled,",
            "                            else self_cpu_time_total), one of:",
            sortKeys(),
            "  --profile-row-limit N     table rows, -1 for all (default 20)",
            "  --profile-percentiles     add duration p50, p99 and max columns to the table",
            "  --profile-record-shapes   record input shapes and dtypes of every op (default on;",
            "                            --profile-record-shapes=false turns it off)",
            "  --profile-with-stack      record the calling Java frames of every op; also writes <name>.stacks",
            "  --profile-with-flops      count FLOPs of matmul, linear, add and mul",
            "  --profile-wait N          schedule: idle steps at the start of each cycle (default 0)",
            "  --profile-warmup N        schedule: warm-up steps after them (default 1)",
            "  --profile-active N        schedule: recorded steps per cycle (default 3)",
            "  --profile-repeat N        schedule: number of cycles, 0 for no limit (default 1)",
            "  --profile-skip-first N    schedule: steps skipped before the first cycle (default 0)",
            "                            one trace is written per cycle; with more than one cycle possible the",
            "                            files are named <name>-cycle<K> (tensorboard: one run directory)",
            "  --max-events N            host events a recording window keeps; more are dropped and counted",
            "                            (default: the profiler's cap, 32,000,000 unless configured); taken in",
            "                            blocks of 16,384 events, so a cap is rounded up to a whole block",
            "  --device-memory SIZE      cap the run device's memory, such as 256m or 2g (emulated accelerators), as",
            "                            torch's set_per_process_memory_fraction: beyond it, out of memory (exit 1)",
            "  --memory-snapshot FILE    record the device allocator's history and write a snapshot at the end of",
            "                            the run and at out of memory: a pickle for PyTorch's memory_viz, or JSON",
            "                            when FILE ends in .json",
            "  --track-memory            print each device's peak allocated and reserved memory at the end",
            "  --ddp                     train data-parallel over the ranks 'vantage launch' started (mlp-train,",
            "                            cnn-train): gradients all-reduced in buckets during backward",
            "  --rank N                  this process's rank (default $RANK); trace files are named <name>-rank<N>",
            "  --world-size N            number of ranks (default $WORLD_SIZE); needs --rank",
            "  --help                    this text",
            "");

    static RunOptions parse(List<String> args, Map<String, String> env) throws UsageException {
        RunOptions o = new RunOptions();
        List<String> profileFlags = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                if (o.workload != null) {
                    throw new UsageException("unexpected argument '" + arg + "' (workload is '" + o.workload + "')");
                }
                o.workload = arg;
                continue;
            }
            if (arg.startsWith("--profile-")) {
                profileFlags.add(arg);
            }
            switch (arg) {
                case "--steps" -> o.steps = intValue(arg, value(args, ++i, arg), 1);
                case "--seed" -> o.seed = longValue(arg, value(args, ++i, arg));
                case "--device" -> o.device = value(args, ++i, arg);
                case "--batch-size" -> o.batchSize = intValue(arg, value(args, ++i, arg), 1);
                case "--threads" -> o.threads = intValue(arg, value(args, ++i, arg), 1);
                case "--optimizer" -> {
                    o.optimizer = value(args, ++i, arg);
                    if (!o.optimizer.equals("sgd") && !o.optimizer.equals("adam")) {
                        throw new UsageException("--optimizer must be sgd or adam, not '" + o.optimizer + "'");
                    }
                }
                case "--profile" -> o.profile = true;
                case "--profile-name" -> o.profileName = name(value(args, ++i, arg));
                case "--profile-dir" -> o.profileDir = path(arg, value(args, ++i, arg));
                case "--profile-activities" -> {
                    List<String> names = values(args, i + 1, arg);
                    i += names.size();
                    Set<Activity> set = new TreeSet<>();
                    for (String n : names) {
                        if (n.equalsIgnoreCase("GPU")) {
                            o.deviceActivity = true;
                            continue;
                        }
                        try {
                            set.add(Activity.parse(n));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException(e.getMessage());
                        }
                    }
                    o.activities = set;
                }
                case "--profile-export" -> {
                    o.exports = values(args, i + 1, arg);
                    i += o.exports.size();
                }
                case "--profile-sort-by" -> {
                    try {
                        o.sortBy = SortKey.parse(value(args, ++i, arg));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException(e.getMessage());
                    }
                }
                case "--profile-row-limit" -> o.rowLimit = intValue(arg, value(args, ++i, arg), -1);
                case "--profile-percentiles" -> o.percentiles = true;
                case "--profile-record-shapes", "--profile-record-shapes=true" -> o.recordShapes = true;
                case "--profile-record-shapes=false" -> o.recordShapes = false;
                case "--profile-with-stack" -> o.withStack = true;
                case "--profile-with-flops" -> o.withFlops = true;
                case "--profile-wait" -> o.waitSteps = intValue(arg, value(args, ++i, arg), 0);
                case "--profile-warmup" -> o.warmupSteps = intValue(arg, value(args, ++i, arg), 0);
                case "--profile-active" -> o.activeSteps = intValue(arg, value(args, ++i, arg), 1);
                case "--profile-repeat" -> o.repeat = intValue(arg, value(args, ++i, arg), 0);
                case "--profile-skip-first" -> o.skipFirst = intValue(arg, value(args, ++i, arg), 0);
                case "--max-events" -> o.maxEvents = (long) intValue(arg, value(args, ++i, arg), 1);
                case "--device-memory" -> o.deviceMemory = size(arg, value(args, ++i, arg));
                case "--memory-snapshot" -> o.memorySnapshot = path(arg, value(args, ++i, arg));
                case "--track-memory" -> o.trackMemory = true;
                case "--ddp" -> o.ddp = true;
                case "--model" -> o.model = path(arg, value(args, ++i, arg));
                case "--seq-len" -> o.seqLen = intValue(arg, value(args, ++i, arg), 1);
                case "--input" -> {
                    List<String> shapes = values(args, i + 1, arg);
                    i += shapes.size();
                    for (String shape : shapes) {
                        inputShape(o.inputs, shape);
                    }
                }
                case "--rank" -> o.rank = intValue(arg, value(args, ++i, arg), 0);
                case "--world-size" -> o.worldSize = intValue(arg, value(args, ++i, arg), 1);
                default -> throw new UsageException("unknown flag '" + arg + "' for 'run'; see 'vantage run --help'");
            }
        }
        if (o.workload == null) {
            throw new UsageException("'run' needs a workload name; see 'vantage run --help'");
        }
        if (!o.profile && !profileFlags.isEmpty()) {
            throw new UsageException(profileFlags.get(0) + " needs --profile");
        }
        if (!o.profile && o.maxEvents != null) {
            throw new UsageException("--max-events needs --profile");
        }
        // as torchrun sets them: a launcher's ranks need no flags
        if (o.rank == null && env.get("RANK") != null && !env.get("RANK").isEmpty()) {
            o.rank = intValue("RANK", env.get("RANK"), 0);
        }
        if (o.worldSize == null && o.rank != null && env.get("WORLD_SIZE") != null
                && !env.get("WORLD_SIZE").isEmpty()) {
            o.worldSize = intValue("WORLD_SIZE", env.get("WORLD_SIZE"), 1);
        }
        if (o.worldSize != null && o.rank == null) {
            throw new UsageException("--world-size needs --rank");
        }
        if (o.rank != null && o.worldSize != null && o.rank >= o.worldSize) {
            throw new UsageException("--rank " + o.rank + " must be below --world-size " + o.worldSize);
        }
        if (o.profileDir == null) {
            String fromEnv = env.get("VANTAGE_PROFILER_DIR");
            o.profileDir = path("VANTAGE_PROFILER_DIR", fromEnv == null || fromEnv.isEmpty()
                    ? "vantage_profiles" : fromEnv);
        }
        if (o.profileName == null) {
            // the ranks of one 'vantage launch' share the launch's time, so their files share a name
            String launched = env.get("VANTAGE_LAUNCH_ID");
            o.profileName = o.workload.replaceAll("[^A-Za-z0-9._-]", "_") + "-"
                    + (launched != null && launched.matches("[0-9]{8}-[0-9]{6}") ? launched
                    : LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        }
        return o;
    }

    /** Cache-dit's schedule: one warm-up step, three recorded, once. */
    static final int DEFAULT_WARMUP = 1;
    static final int DEFAULT_ACTIVE = 3;
    static final int DEFAULT_REPEAT = 1;

    /** Returns the schedule: the flags given, cache-dit's defaults for the rest. */
    Schedule schedule() {
        Map<String, Integer> n = scheduleNumbers();
        return Schedule.of(n.get("wait"), n.get("warmup"), n.get("active"), n.get("repeat"), n.get("skip_first"));
    }

    /** Returns the schedule's numbers under torch's names, in torch's order: the flags given, else the defaults. */
    Map<String, Integer> scheduleNumbers() {
        Map<String, Integer> n = new java.util.LinkedHashMap<>();
        n.put("wait", or(waitSteps, 0));
        n.put("warmup", or(warmupSteps, DEFAULT_WARMUP));
        n.put("active", or(activeSteps, DEFAULT_ACTIVE));
        n.put("repeat", or(repeat, DEFAULT_REPEAT));
        n.put("skip_first", or(skipFirst, 0));
        return n;
    }

    /** Returns true when the schedule can complete more than one cycle, so trace names need a cycle number. */
    boolean manyCycles() {
        return or(repeat, DEFAULT_REPEAT) != 1;
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }

    /** Returns the base name of trace files: the profile name, with {@code -rank<N>} when a rank is set. */
    String baseName() {
        return rank == null ? profileName : profileName + "-rank" + rank;
    }

    /**
     * Parses a size as users write one: bytes, or a number with a unit k, m, g or t (also kb, kib, mb, ...; all
     * binary), such as {@code 256m} or {@code 1.5g}.
     */
    static long size(String flag, String text) throws UsageException {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("(\\d+(?:\\.\\d+)?)\\s*(?:([kmgt])(?:i?b)?|b)?", java.util.regex.Pattern.CASE_INSENSITIVE)
                .matcher(text.trim());
        if (!m.matches()) {
            throw new UsageException(flag + " must be a size such as 256m or 2g, not '" + text + "'");
        }
        int shift = m.group(2) == null ? 0 : 10 * ("kmgt".indexOf(Character.toLowerCase(m.group(2).charAt(0))) + 1);
        double bytes = Double.parseDouble(m.group(1)) * Math.pow(2, shift);
        if (bytes < 1 || bytes >= Long.MAX_VALUE) {
            throw new UsageException(flag + " must be at least one byte and less than 8 EiB, not '" + text + "'");
        }
        return (long) bytes;
    }

    /**
     * Adds one {@code --input NAME=DIMS} value, dims separated by {@code x} or {@code ,} ({@code input_ids=1x128});
     * shared with {@code serve}.
     */
    static void inputShape(Map<String, long[]> inputs, String text) throws UsageException {
        int eq = text.indexOf('=');
        String name = eq < 0 ? "" : text.substring(0, eq);
        String dims = eq < 0 ? "" : text.substring(eq + 1);
        if (name.isEmpty() || !dims.matches("\\d+([x,]\\d+)*")) {
            throw new UsageException("--input must be NAME=DIMS such as input_ids=1x128, not '" + text + "'");
        }
        String[] parts = dims.split("[x,]");
        long[] shape = new long[parts.length];
        for (int d = 0; d < parts.length; d++) {
            try {
                shape[d] = Long.parseLong(parts[d]);
            } catch (NumberFormatException e) {
                shape[d] = -1;
            }
            if (shape[d] < 1) {
                throw new UsageException("--input " + text + ": every dimension must be a whole number from 1 up");
            }
        }
        if (inputs.put(name, shape) != null) {
            throw new UsageException("--input " + name + " is given twice");
        }
    }

    private static String value(List<String> args, int i, String flag) throws UsageException {
        if (i >= args.size() || args.get(i).startsWith("--")) {
            throw new UsageException(flag + " needs a value");
        }
        return args.get(i);
    }

    private static List<String> values(List<String> args, int from, String flag) throws UsageException {
        List<String> list = new ArrayList<>();
        for (int i = from; i < args.size() && !args.get(i).startsWith("--"); i++) {
            list.add(args.get(i));
        }
        if (list.isEmpty()) {
            throw new UsageException(flag + " needs at least one value");
        }
        return List.copyOf(list);
    }

    private static int intValue(String flag, String text, int min) throws UsageException {
        long v = longValue(flag, text);
        if (v < min || v > Integer.MAX_VALUE) {
            throw new UsageException(flag + " must be a whole number from " + min + " up, not '" + text + "'");
        }
        return (int) v;
    }

    private static long longValue(String flag, String text) throws UsageException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new UsageException(flag + " must be a whole number, not '" + text + "'");
        }
    }

    private static String name(String text) throws UsageException {
        if (text.isEmpty() || text.contains("/") || text.contains("\\") || text.contains("..")
                || text.chars().anyMatch(Character::isISOControl)) {
            throw new UsageException("--profile-name must be a plain file name without '/', '\\\\' or '..', not '"
                    + text + "'");
        }
        return text;
    }

    static Path path(String flag, String text) throws UsageException {
        try {
            return Path.of(text).toAbsolutePath().normalize();
        } catch (RuntimeException e) {
            throw new UsageException(flag + " is not a valid path: '" + text + "'");
        }
    }
}
