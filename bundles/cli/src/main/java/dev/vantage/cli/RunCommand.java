package dev.vantage.cli;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code vantage run <workload> [flags]}: runs a workload, optionally profiling it. The profiling flags follow
 * cache-dit's convention ({@code --profile}, {@code --profile-dir}, ...) and need {@code --profile}. After
 * {@link Cli#parse}, every value is resolved: the environment's {@code RANK}, {@code WORLD_SIZE} and
 * {@code VANTAGE_PROFILER_DIR} stand in for flags not given, and the profile name has its default.
 */
@Command(name = "run", description = "run a workload, optionally profiling it and writing traces",
        footer = {"", "'vantage workloads' lists the workloads, 'vantage devices' the devices and 'vantage exporters'"
                + " the trace formats of this distribution."})
public final class RunCommand implements Verb {

    /** torch's sort keys, as {@code --profile-sort-by} takes them; device names such as cuda map to device. */
    public static final List<String> SORT_KEYS = List.of("cpu_time_total", "self_cpu_time_total", "cpu_time",
            "device_time_total", "self_device_time_total", "device_time", "cpu_memory_usage",
            "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage", "count", "cpu_time_p99");

    /** Cache-dit's schedule: one warm-up step, three recorded, once. */
    public static final int DEFAULT_WARMUP = 1;
    /** Cache-dit's schedule: three recorded steps. */
    public static final int DEFAULT_ACTIVE = 3;
    /** Cache-dit's schedule: one cycle. */
    public static final int DEFAULT_REPEAT = 1;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<workload>", description = "the workload to run, such as matmul")
    private String workload;

    @Option(names = "--steps", paramLabel = "N", converter = Converters.Positive.class,
            description = "steps to run (default 10)")
    private int steps = 10;

    @Mixin
    private WorkloadOptions run;

    @Option(names = "--optimizer", paramLabel = "NAME", converter = Optimizer.class,
            description = "sgd or adam, for training workloads (default: the workload's own)")
    private String optimizer = "";

    @Option(names = "--ddp", description = "train data-parallel over the ranks 'vantage launch' started (mlp-train,"
            + " cnn-train): gradients all-reduced in buckets during backward")
    private boolean ddp;

    @Option(names = "--profile", description = "record a profile and write traces")
    private boolean profile;

    @Option(names = "--profile-name", paramLabel = "NAME", converter = Converters.FileName.class,
            description = "base name of the trace files (default <workload>-<date>-<time>)")
    private String profileName;

    @Option(names = "--profile-dir", paramLabel = "DIR", converter = Converters.GivenPath.class,
            description = "where traces go (default $VANTAGE_PROFILER_DIR, else ./vantage_profiles)")
    private Path profileDir;

    @Option(names = "--profile-activities", paramLabel = "A", arity = "1..*", split = ",",
            description = "what to record: CPU, MEM, GPU (the run device's activity) or a device's by name: NPU,"
                    + " SPYRE, MPS, ORT or a plugin's (default CPU, the run device's, and that of a device that is no"
                    + " tensor backend, such as ORT, on any device)")
    private List<String> activities;

    @Option(names = "--profile-export", paramLabel = "F", arity = "1..*", split = ",",
            description = "trace formats to write (default chrome); 'vantage exporters' lists them")
    private List<String> exports = List.of("chrome");

    @Option(names = "--profile-sort-by", paramLabel = "KEY",
            description = "table order (default self_device_time_total when a device is profiled, else"
                    + " self_cpu_time_total), one of: ${COMPLETION-CANDIDATES}", completionCandidates = SortKeys.class)
    private String sortBy;

    @Option(names = "--profile-row-limit", paramLabel = "N", converter = Converters.RowLimit.class,
            description = "table rows, -1 for all (default 20)")
    private int rowLimit = 20;

    @Option(names = "--profile-percentiles", description = "add duration p50, p99 and max columns to the table")
    private boolean percentiles;

    @Option(names = "--profile-record-shapes", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
            description = "record input shapes and dtypes of every op (default on; --profile-record-shapes=false"
                    + " turns it off)")
    private boolean recordShapes = true;

    @Option(names = "--profile-with-stack", description = "record the calling Java frames of every op; also writes"
            + " <name>.stacks")
    private boolean withStack;

    @Option(names = "--profile-with-flops", description = "count FLOPs of matmul, linear, add and mul")
    private boolean withFlops;

    @Option(names = "--profile-wait", paramLabel = "N", converter = Converters.NonNegative.class,
            description = "schedule: idle steps at the start of each cycle (default 0)")
    private Integer waitSteps;

    @Option(names = "--profile-warmup", paramLabel = "N", converter = Converters.NonNegative.class,
            description = "schedule: warm-up steps after them (default 1)")
    private Integer warmupSteps;

    @Option(names = "--profile-active", paramLabel = "N", converter = Converters.Positive.class,
            description = "schedule: recorded steps per cycle (default 3)")
    private Integer activeSteps;

    @Option(names = "--profile-repeat", paramLabel = "N", converter = Converters.NonNegative.class,
            description = "schedule: number of cycles, 0 for no limit (default 1); one trace is written per cycle,"
                    + " named <name>-cycle<K> when more than one cycle is possible")
    private Integer repeat;

    @Option(names = "--profile-skip-first", paramLabel = "N", converter = Converters.NonNegative.class,
            description = "schedule: steps skipped before the first cycle (default 0)")
    private Integer skipFirst;

    @Option(names = "--max-events", paramLabel = "N", converter = Converters.Positive.class,
            description = "host events a recording window keeps; more are dropped and counted (default: the"
                    + " profiler's cap, 32,000,000 unless configured), in blocks of 16,384 events")
    private Integer maxEvents;

    @Option(names = "--device-memory", paramLabel = "SIZE", converter = Converters.Size.class,
            description = "cap the run device's memory, such as 256m or 2g (accelerators), as torch's"
                    + " set_per_process_memory_fraction: beyond it, out of memory (exit 1)")
    private Long deviceMemory;

    @Option(names = "--memory-snapshot", paramLabel = "FILE", converter = Converters.AbsolutePath.class,
            description = "record the device allocator's history and write a snapshot at the end of the run and at"
                    + " out of memory: a pickle for PyTorch's memory_viz, or JSON when FILE ends in .json")
    private Path memorySnapshot;

    @Option(names = "--track-memory", description = "print each device's peak allocated and reserved memory at"
            + " the end")
    private boolean trackMemory;

    /** Whether the platform claims the profile name for this run, made unique if taken; see {@link TraceName}. */
    private boolean claimName;

    /** Whether {@code --profile-name} was given. */
    private boolean givenName;

    @Option(names = "--rank", paramLabel = "N", converter = Converters.NonNegative.class,
            description = "this process's rank (default $RANK); trace files are named <name>-rank<N>")
    private Integer rank;

    @Option(names = "--world-size", paramLabel = "N", converter = Converters.Positive.class,
            description = "number of ranks (default $WORLD_SIZE); needs --rank")
    private Integer worldSize;

    /** The sort keys, for the help text and completion. */
    static final class SortKeys extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        SortKeys() {
            super(SORT_KEYS);
        }
    }

    /** {@code sgd} or {@code adam}. */
    static final class Optimizer implements picocli.CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (!text.equals("sgd") && !text.equals("adam")) {
                throw new picocli.CommandLine.TypeConversionException("'" + text + "' is not sgd or adam");
            }
            return text;
        }
    }

    @Override
    public Host host() {
        return Host.PLATFORM;
    }

    @Override
    public void check(Map<String, String> env) throws UsageException {
        ParseResult given = spec.commandLine().getParseResult();
        if (!profile) {
            for (String flag : List.of("--profile-name", "--profile-dir", "--profile-activities", "--profile-export",
                    "--profile-sort-by", "--profile-row-limit", "--profile-percentiles", "--profile-record-shapes",
                    "--profile-with-stack", "--profile-with-flops", "--profile-wait", "--profile-warmup",
                    "--profile-active", "--profile-repeat", "--profile-skip-first", "--max-events")) {
                if (given.hasMatchedOption(flag)) {
                    throw new UsageException(flag + " needs --profile");
                }
            }
        }
        run.check();
        // as torchrun sets them: a launcher's ranks need no flags
        if (rank == null) {
            rank = fromEnv(env, "RANK", 0, Integer.MAX_VALUE);
        }
        if (worldSize == null && rank != null) {
            worldSize = fromEnv(env, "WORLD_SIZE", 1, Integer.MAX_VALUE);
        }
        if (worldSize != null && rank == null) {
            throw new UsageException("--world-size needs --rank");
        }
        if (rank != null && worldSize != null && rank >= worldSize) {
            throw new UsageException("--rank " + rank + " must be below --world-size " + worldSize);
        }
        if (ddp) {
            // the process group joins the launch's rendezvous from the environment that 'vantage launch' sets
            List<String> missing = new ArrayList<>();
            for (String name : List.of("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")) {
                if (env.get(name) == null || env.get(name).isBlank()) {
                    missing.add(name);
                }
            }
            if (!missing.isEmpty()) {
                throw new UsageException("--ddp trains over the ranks that 'vantage launch' starts, and "
                        + String.join(", ", missing) + (missing.size() == 1 ? " is" : " are") + " not set here:"
                        + " run it as 'vantage launch --nproc N " + workload + " --ddp ...'");
            }
        }
        try {
            profileDir = ProfileDirectory.resolve(profileDir, env);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (profileName == null) {
            // the ranks of one 'vantage launch' share the launch's time, so their files share a name
            String launched = env.get("VANTAGE_LAUNCH_ID");
            boolean ofLaunch = launched != null && launched.matches("[0-9]{8}-[0-9]{6}");
            profileName = workload.replaceAll("[^A-Za-z0-9._-]", "_") + "-"
                    + (ofLaunch ? launched
                    : LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            claimName = !ofLaunch;
        } else {
            // a name given twice (four runs at once, or a run again) must not lose the first run's files; a rank's
            // files are told apart by their -rank<N>
            claimName = rank == null;
            givenName = true;
        }
    }

    private static Integer fromEnv(Map<String, String> env, String name, int min, int max) throws UsageException {
        String text = env.get(name);
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return (int) Converters.wholeNumber(text, min, max);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new UsageException("$" + name + ": " + e.getMessage());
        }
    }

    /** Returns the workload's name. */
    public String workload() {
        return workload;
    }

    /** Returns how the workload runs: device, seed, batch size, threads. */
    public WorkloadOptions run() {
        return run;
    }

    /** Returns the steps to run, 1 or more. */
    public int steps() {
        return steps;
    }

    /** Returns {@code sgd}, {@code adam}, or the empty string for the workload's own. */
    public String optimizer() {
        return optimizer;
    }

    /** Returns whether to train data-parallel over a launch's ranks. */
    public boolean ddp() {
        return ddp;
    }

    /** Returns whether to profile. */
    public boolean profile() {
        return profile;
    }

    /** Returns the trace files' base name, resolved (never null after {@link Cli#parse}). */
    public String profileName() {
        return profileName;
    }

    /**
     * Returns true when the platform claims the trace name for this run ({@link TraceName}, {@link #useClaimedName}):
     * a run of its own, whether the name is the default {@code <workload>-<date>-<time>} (runs started in the same
     * second have the same one) or given with {@code --profile-name} (four runs given one name at once, or a run
     * given the name of an earlier one); not a rank, whose files its {@code -rank<N>} tells apart.
     */
    public boolean claimsProfileName() {
        return claimName;
    }

    /**
     * Returns true when the trace name is the default {@code <workload>-<date>-<time>} of a run of its own.
     *
     * @deprecated a given name is claimed too; use {@link #claimsProfileName()}
     */
    @Deprecated
    public boolean defaultProfileName() {
        return claimName && !givenName;
    }

    /** Returns whether the trace name was given with {@code --profile-name}. */
    public boolean givenProfileName() {
        return givenName;
    }

    /**
     * Replaces the trace name with the one the platform claimed for this run ({@link TraceName}): the name itself
     * when it was free, else the first of {@code <name>-2}, {@code <name>-3}, ... that was.
     *
     * @throws IllegalStateException if the run's name is not claimed ({@link #claimsProfileName()})
     */
    public void useClaimedName(TraceName claimed) {
        if (!claimName) {
            throw new IllegalStateException("the trace name " + profileName + " is a rank's; it is not replaced");
        }
        profileName = claimed.name();
    }

    /** Returns the profile directory, absolute and resolved (never null after {@link Cli#parse}). */
    public Path profileDir() {
        return profileDir;
    }

    /** Returns the activity names asked for, as given (GPU included), or null for cache-dit's default. */
    public List<String> activities() {
        return activities == null ? null : List.copyOf(activities);
    }

    /** Returns the trace formats to write, {@code chrome} by default. */
    public List<String> exports() {
        return List.copyOf(exports);
    }

    /** Returns the table's sort key as given, or null for the default. */
    public String sortBy() {
        return sortBy;
    }

    /** Returns the table's row limit, -1 for all. */
    public int rowLimit() {
        return rowLimit;
    }

    /** Returns whether the table has p50, p99 and max columns. */
    public boolean percentiles() {
        return percentiles;
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

    /** Returns the window's event cap, or null for the profiler's. */
    public Integer maxEvents() {
        return maxEvents;
    }

    /** Returns the cap on the run device's memory in bytes, or null for none. */
    public Long deviceMemory() {
        return deviceMemory;
    }

    /** Returns where to write the run device's memory snapshot, or null for none. */
    public Path memorySnapshot() {
        return memorySnapshot;
    }

    /** Returns whether to print the devices' peak memory at the end. */
    public boolean trackMemory() {
        return trackMemory;
    }

    /** Returns this process's rank, from {@code --rank} or {@code $RANK}, or null. */
    public Integer rank() {
        return rank;
    }

    /** Returns the number of ranks, from {@code --world-size} or {@code $WORLD_SIZE}, or null. */
    public Integer worldSize() {
        return worldSize;
    }

    /**
     * Returns the schedule's numbers under torch's names, in torch's order ({@code wait}, {@code warmup},
     * {@code active}, {@code repeat}, {@code skip_first}): the flags given, cache-dit's defaults for the rest.
     */
    public Map<String, Integer> schedule() {
        Map<String, Integer> n = new LinkedHashMap<>();
        n.put("wait", or(waitSteps, 0));
        n.put("warmup", or(warmupSteps, DEFAULT_WARMUP));
        n.put("active", or(activeSteps, DEFAULT_ACTIVE));
        n.put("repeat", or(repeat, DEFAULT_REPEAT));
        n.put("skip_first", or(skipFirst, 0));
        return n;
    }

    /** Returns true when the schedule can complete more than one cycle, so trace names need a cycle number. */
    public boolean manyCycles() {
        return or(repeat, DEFAULT_REPEAT) != 1;
    }

    /** Returns the base name of trace files: the profile name, with {@code -rank<N>} when a rank is set. */
    public String baseName() {
        return rank == null ? profileName : profileName + "-rank" + rank;
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
