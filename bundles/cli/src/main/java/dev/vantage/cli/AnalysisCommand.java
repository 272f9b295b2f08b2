package dev.vantage.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The verbs that read published outputs (the run registry, trace files, Parquet) in the analysis library, without
 * booting the platform: {@code runs}, {@code compare}, {@code report} and {@code analyze}.
 */
public final class AnalysisCommand {

    private AnalysisCommand() {
    }

    /** {@code vantage runs [--dir DIR] [--json]}. */
    @Command(name = "runs", description = "list the profiled runs recorded in <profile-dir>/runs.jsonl",
            footer = {"", "Oldest first: run id, start time (UTC), workload (or the trigger of an on-demand capture),"
                    + " rank, device, steps, mean step time and the number of files written. 'vantage compare' and"
                    + " 'vantage report' take a run id or a unique prefix of one. A line of runs.jsonl that is not a"
                    + " run is reported with its line number and skipped; the exit code is then 2."})
    public static final class Runs implements Verb {
        @Option(names = "--dir", paramLabel = "DIR", converter = Converters.GivenPath.class,
                description = "the profile directory (or the runs.jsonl file); default $VANTAGE_PROFILER_DIR, else"
                        + " ./vantage_profiles")
        private Path dir;

        @Option(names = "--json", description = "print the runs as one JSON array of their registry lines")
        private boolean json;

        @Override
        public Host host() {
            return Host.ANALYSIS;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            dir = Registry.resolve(dir, env);
        }

        /** Returns the profile directory or registry file, absolute. */
        public Path dir() {
            return dir;
        }

        /** Returns whether to print JSON. */
        public boolean json() {
            return json;
        }
    }

    /** {@code vantage compare RUN_A RUN_B [flags]}. */
    @Command(name = "compare", description = "per-op, per-kernel, per-step and memory-peak deltas of two runs or"
            + " traces",
            footer = {"", "RUN_A and RUN_B are run ids, or prefixes only one run has, from <dir>/runs.jsonl, or trace"
                    + " files (.trace.json or .trace.json.gz). Deltas of count, self and total time, mean and p99,"
                    + " sorted by absolute change; new and vanished ops and kernels flagged."})
    public static final class Compare implements Verb {
        @Parameters(arity = "0..*", paramLabel = "RUN", description = "the two runs or traces, before and after")
        private List<String> runs = new ArrayList<>();

        @Option(names = "--format", paramLabel = "F", converter = Converters.Format.class, description = "table (default), csv or json (schema:"
                + " compare.schema.json)")
        private OutputFormat format = OutputFormat.TABLE;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", converter = Converters.AbsolutePath.class,
                description = "write to FILE instead of standard output")
        private Path output;

        @Option(names = "--top", paramLabel = "N", converter = Converters.Positive.class,
                description = "at most N operators and N kernels, the largest changes (default: 20 for table, all"
                        + " for csv and json)")
        private Integer top;

        @Mixin
        private Registry registry;

        @Mixin
        private Strictness strictness;

        @Override
        public Host host() {
            return Host.ANALYSIS;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            if (runs.size() != 2) {
                throw new UsageException("compare takes two runs or traces, before and after; "
                        + (runs.isEmpty() ? "none was given" : runs.size() + (runs.size() == 1 ? " was" : " were")
                        + " given: " + String.join(" ", runs)));
            }
            registry.resolve(env);
            Outputs.check(output);
        }

        /** Returns whether a damaged trace is refused ({@code --strict}) rather than read with repairs. */
        public boolean strict() {
            return strictness.strict;
        }

        /** Returns the two runs or traces as given. */
        public List<String> runs() {
            return List.copyOf(runs);
        }

        /** Returns the output format. */
        public OutputFormat format() {
            return format;
        }

        /** Returns the output file, absolute, or null for standard output. */
        public Path output() {
            return output;
        }

        /** Returns the row limit: {@code --top}, else 20 for a table and -1 (all) otherwise. */
        public int top() {
            return top != null ? top : format == OutputFormat.TABLE ? 20 : -1;
        }

        /** Returns the profile directory, absolute. */
        public Path dir() {
            return registry.dir;
        }
    }

    /** {@code vantage report TRACE|RUN|DIR [-o FILE] [--dir DIR]}. */
    @Command(name = "report", description = "one self-contained HTML report (overview, operators, kernels, memory,"
            + " ranks) of a trace, run or directory of ranks",
            footer = {"", "The page needs no network to view. For several traces (one per rank) it adds the per-rank"
                    + " step times and stragglers."})
    public static final class Report implements Verb {
        @Parameters(index = "0", paramLabel = "TRACE|RUN|DIR", description = "a trace file, a run id (or a unique"
                + " prefix) from <dir>/runs.jsonl, or a directory of traces such as the ranks of one job")
        private String input;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", converter = Converters.AbsolutePath.class,
                description = "the page to write, ending in .html (default report.html)")
        private Path output = Path.of("report.html").toAbsolutePath();

        @Mixin
        private Registry registry;

        @Mixin
        private Strictness strictness;

        @Override
        public Host host() {
            return Host.ANALYSIS;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            registry.resolve(env);
            Outputs.check(output);
            if (!output.getFileName().toString().matches(".*\\.html?")) {
                throw new UsageException("-o '" + output + "' should end in .html");
            }
        }

        /** Returns whether a damaged trace is refused ({@code --strict}) rather than read with repairs. */
        public boolean strict() {
            return strictness.strict;
        }

        /** Returns the trace, run or directory as given. */
        public String input() {
            return input;
        }

        /** Returns the page to write, absolute. */
        public Path output() {
            return output;
        }

        /** Returns the profile directory, absolute. */
        public Path dir() {
            return registry.dir;
        }
    }

    /** {@code vantage analyze TRACE|DIR... [flags]}. */
    @Command(name = "analyze", description = "device analyses of trace files (HTA's temporal, kernel and idle time"
            + " breakdowns, kernel launches, queue lengths, the TensorBoard plugin's GPU figures),"
            + " or cross-rank SQL over Parquet traces (step time, stragglers, overlap, idle, top ops)",
            footer = {"", "Trace files and folders of rank traces (*.json, *.pftrace, .gz) are read directly: one trace"
                    + " per rank; the tables and columns are named as HTA's DataFrames (times in us).",
                    "One DIR holding *_parquet folders, at any depth, as --profile-export parquet and vantage convert"
                    + " write them, runs the SQL analyses, which run unchanged on DuckDB and on Apache Spark"
                    + " (docs/analysis.md)."})
    public static final class Analyze implements Verb {
        private static final Pattern REMOTE = Pattern.compile("sc://[A-Za-z0-9.\\[\\]:_-]+:(\\d{1,5})(/;.*)?");
        private static final Pattern SIZE = Pattern.compile("\\d+(\\.\\d+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)",
                Pattern.CASE_INSENSITIVE);

        /** The SQL engines. */
        public enum Engine {
            /** DuckDB, embedded. */
            DUCKDB,
            /** A Spark cluster through Spark Connect ({@code --remote sc://HOST:PORT}). */
            SPARK
        }

        /** An engine by name. */
        static final class EngineChoice extends Converters.Choice<Engine> {
            EngineChoice() {
                super(Engine.class);
            }
        }

        @Parameters(arity = "1..*", paramLabel = "TRACE|DIR", converter = Converters.GivenPath.class,
                description = "trace files and folders of rank traces; or one directory to search for Parquet traces")
        private List<Path> inputs = new ArrayList<>();

        @Option(names = "--analysis", paramLabel = "NAME", split = ",", description = "the analyses to run (default:"
                + " all of the inputs' kind): of traces temporal, kernels, launch, idle, queue, bandwidth, sequences (with"
                + " --operator), critical-path, gpu, advice; of Parquet"
                + " folders step_time, stragglers, overlap, idle_time, top_ops and, as SQL, temporal, kernels, launch,"
                + " idle, queue, bandwidth, sequences (with --operator), gpu")
        private List<String> analyses = new ArrayList<>();

        @Option(names = "--runtime-cutoff", paramLabel = "US", description = "launch: a launch call longer than US"
                + " microseconds is an outlier (default 50, HTA's)")
        private long runtimeCutoff = 50;

        @Option(names = "--launch-delay-cutoff", paramLabel = "US", description = "launch: a kernel that starts more"
                + " than US microseconds after its launch call returned is an outlier (default 100, HTA's)")
        private long launchDelayCutoff = 100;

        @Option(names = "--kernel-wait", paramLabel = "US", description = "idle: a gap between kernels on a stream"
                + " shorter than US microseconds is a kernel wait (default 30, the threshold HTA applies)")
        private long kernelWait = 30;

        @Option(names = "--max-queue-length", paramLabel = "N", description = "queue: the launch queue's length at"
                + " which a launch call blocks (default 1024, CUDA's per stream)")
        private int maxQueueLength = 1024;

        @Option(names = "--operator", paramLabel = "NAME", description = "sequences: the host op whose kernel"
                + " sequences are counted: every op or annotation whose name contains NAME, at the shallowest depth"
                + " found (HTA's operator_name; ProfilerStep gives each step's)")
        private String operator;

        @Option(names = "--min-pattern-length", paramLabel = "N", description = "sequences: the fewest kernels a"
                + " sequence has (default 3, HTA's)")
        private int minPatternLength = 3;

        @Option(names = "--engine", paramLabel = "E", converter = EngineChoice.class, description = "the SQL engine: duckdb (default,"
                + " embedded) or spark (a Spark Connect server, --remote)")
        private Engine engine = Engine.DUCKDB;

        @Option(names = "--remote", paramLabel = "URL", description = "with --engine spark: the Spark Connect server,"
                + " sc://HOST:PORT; the Parquet files must be at paths the cluster reads")
        private String remote;

        @Option(names = "--format", paramLabel = "F", converter = Converters.Format.class, description = "table (default: a summary, then each analysis,"
                + " times in ms, at most 20 rows each), csv or json (every row, ns)")
        private OutputFormat format = OutputFormat.TABLE;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", converter = Converters.AbsolutePath.class,
                description = "write to FILE instead of standard output")
        private Path output;

        @Option(names = "--memory-limit", paramLabel = "SIZE", description = "DuckDB's memory limit, such as 512MB or"
                + " 2GB (default: 80%% of the machine's); what does not fit spills to a temporary directory")
        private String memoryLimit;

        @Override
        public Host host() {
            return Host.ANALYSIS;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            if (runtimeCutoff < 0 || launchDelayCutoff < 0 || kernelWait < 0) {
                throw new UsageException("--runtime-cutoff, --launch-delay-cutoff and --kernel-wait are microseconds,"
                        + " 0 or more");
            }
            if (maxQueueLength < 1) {
                throw new UsageException("--max-queue-length " + maxQueueLength + " must be 1 or more");
            }
            if (minPatternLength < 1) {
                throw new UsageException("--min-pattern-length " + minPatternLength + " must be 1 or more");
            }
            if (operator != null && (operator.isBlank() || operator.chars().anyMatch(Character::isISOControl))) {
                throw new UsageException("--operator '" + operator + "' is empty or holds control characters");
            }
            if (analyses.contains("sequences") && operator == null) {
                throw new UsageException("--analysis sequences needs --operator NAME: the op whose kernel sequences"
                        + " to count (ProfilerStep gives each step's)");
            }
            if (memoryLimit != null && !SIZE.matcher(memoryLimit).matches()) {
                throw new UsageException("--memory-limit '" + memoryLimit + "' is not a size such as 512MB or 2GB");
            }
            if (engine == Engine.SPARK && remote == null) {
                throw new UsageException("--engine spark needs --remote sc://HOST:PORT");
            }
            if (remote != null && engine != Engine.SPARK) {
                throw new UsageException("--remote is for --engine spark");
            }
            java.util.regex.Matcher m = remote == null ? null : REMOTE.matcher(remote);
            if (m != null && !m.matches()) {
                throw new UsageException("--remote '" + remote + "' is not sc://HOST:PORT");
            }
            if (m != null && (Integer.parseInt(m.group(1)) < 1 || Integer.parseInt(m.group(1)) > 65535)) {
                throw new UsageException("--remote '" + remote + "': port " + m.group(1)
                        + " is out of range (1 to 65535)");
            }
            if (memoryLimit != null && engine == Engine.SPARK) {
                throw new UsageException("--memory-limit is DuckDB's; a Spark cluster has its own");
            }
            Outputs.check(output);
        }

        /** Returns the first input: the directory to search for Parquet traces, when the inputs are one. */
        public Path dir() {
            return inputs.isEmpty() ? null : inputs.get(0);
        }

        /** Returns the trace files and directories given, in order. */
        public List<Path> inputs() {
            return List.copyOf(inputs);
        }

        /** Returns the launch call duration, in microseconds, beyond which a call is an outlier. */
        public long runtimeCutoff() {
            return runtimeCutoff;
        }

        /** Returns the op whose kernel sequences {@code sequences} counts, or null. */
        public String operator() {
            return operator;
        }

        /** Returns the fewest kernels a sequence has. */
        public int minPatternLength() {
            return minPatternLength;
        }

        /** Returns the launch queue's length at which a launch blocks. */
        public int maxQueueLength() {
            return maxQueueLength;
        }

        /** Returns the gap between kernels, in microseconds, under which it is a kernel wait. */
        public long kernelWait() {
            return kernelWait;
        }

        /** Returns the launch delay, in microseconds, beyond which a kernel's start is an outlier. */
        public long launchDelayCutoff() {
            return launchDelayCutoff;
        }

        /** Returns the analyses asked for by name, or an empty list for all. */
        public List<String> analyses() {
            return List.copyOf(analyses);
        }

        /** Returns the SQL engine. */
        public Engine engine() {
            return engine;
        }

        /** Returns the output format. */
        public OutputFormat format() {
            return format;
        }

        /** Returns the output file, absolute, or null for standard output. */
        public Path output() {
            return output;
        }

        /** Returns the Spark Connect URL, or null. */
        public String remote() {
            return remote;
        }

        /** Returns DuckDB's memory limit as given, or null for its default. */
        public String memoryLimit() {
            return memoryLimit;
        }
    }

    /** {@code vantage convert TRACE|DIR... -o DIR [--job-id ID]}. */
    @Command(name = "convert", description = "PyTorch traces (Kineto JSON, plain or .gz, or torch's legacy array) to"
            + " the parquet exporter's tables, so that analyze reads a PyTorch job",
            footer = {"", "Each trace becomes a folder <run>_parquet in DIR. The ranks come from distributedInfo, else"
                    + " from a number after 'rank' or 'worker' in the file name, else from the files' order; the"
                    + " job is --job-id, else the name of the directory the traces are in"
                    + " (docs/parquet-schema.md, \"Converted traces\")."})
    public static final class Convert implements Verb {
        @Parameters(arity = "1..*", paramLabel = "TRACE|DIR", converter = Converters.GivenPath.class,
                description = "trace files, or directories whose *.json and *.json.gz files are the ranks of a job")
        private List<Path> inputs;

        @Option(names = {"-o", "--output"}, paramLabel = "DIR", required = true,
                converter = Converters.AbsolutePath.class, description = "the directory to write the folders into"
                        + " (created when missing)")
        private Path output;

        @Option(names = "--job-id", paramLabel = "ID", description = "the job_id of every row (default: the name of"
                + " the directory holding the traces)")
        private String jobId;

        @Mixin
        private Strictness strictness;

        @Override
        public Host host() {
            return Host.ANALYSIS;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            if (Files.exists(output) && !Files.isDirectory(output)) {
                throw new UsageException("-o '" + output + "' is a file; name a directory");
            }
            Outputs.writableDirectory(output);
            if (jobId != null && (jobId.isBlank() || jobId.chars().anyMatch(Character::isISOControl))) {
                throw new UsageException("--job-id '" + jobId + "' is empty or holds control characters");
            }
            Outputs.existing(inputs);
        }

        /** Returns the trace files and directories as given. */
        public List<Path> inputs() {
            return List.copyOf(inputs);
        }

        /** Returns the directory to write into, absolute. */
        public Path output() {
            return output;
        }

        /** Returns the job id given, or null. */
        public String jobId() {
            return jobId;
        }

        /** Returns whether a damaged trace is refused ({@code --strict}) rather than read with repairs. */
        public boolean strict() {
            return strictness.strict;
        }
    }

    @Command(name = "merge", description = "one timeline of a job's rank traces, each rank a process, their clocks"
            + " aligned on the ends of their collectives",
            footer = {"", "The lowest rank keeps its clock; every other rank is shifted by the difference that brings"
                    + " the most of its communication kernels' ends onto the reference's (same step and kernel name)."
                    + " The shifts are printed and kept in the file's otherData (a .pftrace's trace attributes;"
                    + " docs/analysis.md, \"One timeline of all ranks\")."})
    public static final class Merge implements Verb {
        @Parameters(arity = "1..*", paramLabel = "TRACE|DIR", converter = Converters.GivenPath.class,
                description = "the ranks' trace files, or directories of them")
        private List<Path> inputs;

        @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true,
                converter = Converters.AbsolutePath.class, description = "the merged trace: Kineto JSON (*.json,"
                        + " *.json.gz) or Perfetto's protobuf (*.pftrace, *.pftrace.gz)")
        private Path output;

        @Mixin
        private Strictness strictness;

        @Override
        public Host host() {
            return Host.ANALYSIS;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            String name = output.getFileName().toString();
            if (!name.endsWith(".json") && !name.endsWith(".json.gz") && !name.endsWith(".pftrace")
                    && !name.endsWith(".pftrace.gz")) {
                throw new UsageException("-o '" + output + "': merge writes Kineto JSON or Perfetto's protobuf; name a"
                        + " *.json, *.json.gz, *.pftrace or *.pftrace.gz file");
            }
            Outputs.check(output);
            Outputs.existing(inputs);
            for (Path in : inputs) {
                if (in.toAbsolutePath().normalize().equals(output.normalize())) {
                    throw new UsageException("-o '" + output + "' is one of the traces to merge");
                }
            }
        }

        /** Returns the trace files and directories as given. */
        public List<Path> inputs() {
            return List.copyOf(inputs);
        }

        /** Returns the file to write, absolute. */
        public Path output() {
            return output;
        }

        /** Returns whether a damaged trace is refused ({@code --strict}) rather than read with repairs. */
        public boolean strict() {
            return strictness.strict;
        }
    }

    /** {@code --strict}: a damaged trace is refused, with the byte offset, instead of read with repairs. */
    static final class Strictness {
        @Option(names = "--strict", description = "refuse a damaged trace, naming the byte offset, instead of"
                + " repairing what has one reading, skipping what has none and saying so in one line")
        private boolean strict;
    }

    /** {@code --dir}: where the run registry of {@code compare} and {@code report} is. */
    static final class Registry {
        @Option(names = "--dir", paramLabel = "DIR", converter = Converters.GivenPath.class,
                description = "the profile directory with runs.jsonl (default $VANTAGE_PROFILER_DIR, else"
                        + " ./vantage_profiles)")
        private Path dir;

        void resolve(Map<String, String> env) throws UsageException {
            dir = resolve(dir, env);
        }

        static Path resolve(Path given, Map<String, String> env) throws UsageException {
            try {
                return ProfileDirectory.resolve(given, env);
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
        }
    }

    private static final class Outputs {
        static void check(Path output) throws UsageException {
            if (output == null) {
                return;
            }
            if (Files.isDirectory(output)) {
                throw new UsageException("-o '" + output + "' is a directory; name a file");
            }
            if (output.getParent() == null || !Files.isDirectory(output.getParent())) {
                throw new UsageException("-o '" + output + "': directory " + output.getParent() + " does not exist");
            }
            if (!Files.isWritable(output.getParent())) {
                throw new UsageException("-o '" + output + "': directory " + output.getParent()
                        + " cannot be written");
            }
            if (Files.exists(output) && !Files.isWritable(output)) {
                throw new UsageException("-o '" + output + "' cannot be written");
            }
        }

        /** Inputs given on the command line: each one exists. */
        static void existing(List<Path> inputs) throws UsageException {
            for (Path in : inputs) {
                if (!Files.exists(in)) {
                    throw new UsageException("'" + in + "' does not exist");
                }
            }
        }

        /** A directory to write into: writable, or to be created in the nearest existing directory, writable. */
        static void writableDirectory(Path dir) throws UsageException {
            Path existing = dir;
            while (existing != null && !Files.exists(existing)) {
                existing = existing.getParent();
            }
            if (existing == null || !Files.isDirectory(existing)) {
                throw new UsageException("-o '" + dir + "' cannot be created: " + existing + " is not a directory");
            }
            if (!Files.isWritable(existing)) {
                throw new UsageException("-o '" + dir + "' " + (existing.equals(dir) ? "cannot be written"
                        : "cannot be created: " + existing + " cannot be written"));
            }
        }
    }
}
