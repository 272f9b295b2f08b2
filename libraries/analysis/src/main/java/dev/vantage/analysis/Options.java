package dev.vantage.analysis;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

import dev.vantage.trace.engine.device.DeviceAnalyses;

/**
 * The analysis verbs' options as plain values: what {@code report}, {@code compare}, {@code analyze},
 * {@code convert} and {@code runs} need, whoever parsed them (the command tree in {@code cli}, through {@link Tools},
 * or a program that calls a verb itself). No verb needs picocli to run.
 */
public final class Options {

    private Options() {
    }

    /** How results are written. */
    public enum Format {
        TABLE, CSV, JSON;

        /** Returns the format's name as the command line spells it. */
        public String spelling() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The SQL engine of {@code analyze}. */
    public enum Engine {
        DUCKDB, SPARK
    }

    /**
     * {@code vantage runs}.
     *
     * @param dir the profile directory whose {@code runs.jsonl} is listed
     * @param json whether to write JSON lines rather than a table
     */
    public record Runs(Path dir, boolean json) {
        public Runs {
            Objects.requireNonNull(dir, "dir");
        }
    }

    /**
     * {@code vantage compare A B}.
     *
     * @param runs the two traces or run ids
     * @param dir the profile directory run ids are looked up in
     * @param output the file to write, or null for standard output
     * @param top how many rows each table shows
     * @param strict whether a damaged trace is refused ({@code --strict}) rather than read with repairs
     */
    public record Compare(List<String> runs, Path dir, Path output, int top, Format format, boolean strict) {
        /** Damaged traces read with repairs. */
        public Compare(List<String> runs, Path dir, Path output, int top, Format format) {
            this(runs, dir, output, top, format, false);
        }

        public Compare {
            runs = List.copyOf(runs);
            if (runs.size() != 2) {
                throw new IllegalArgumentException("compare takes two traces or runs, not " + runs.size());
            }
            Objects.requireNonNull(dir, "dir");
            Objects.requireNonNull(format, "format");
        }
    }

    /**
     * {@code vantage report}.
     *
     * @param input a trace file, a run id or a directory of rank traces
     * @param dir the profile directory run ids are looked up in
     * @param output the page to write
     * @param strict whether a damaged trace is refused ({@code --strict}) rather than read with repairs
     */
    public record Report(String input, Path dir, Path output, boolean strict) {
        /** Damaged traces read with repairs. */
        public Report(String input, Path dir, Path output) {
            this(input, dir, output, false);
        }

        public Report {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(dir, "dir");
            Objects.requireNonNull(output, "output");
        }
    }

    /**
     * {@code vantage analyze}.
     *
     * @param inputs trace files and directories of them (the trace engine's analyses), or one directory of Parquet
     *     trace folders (the SQL analyses)
     * @param analyses the analyses asked for by name, or empty for every analysis of the inputs' kind
     * @param remote a Spark Connect address for {@link Engine#SPARK}, else null
     * @param output the file to write, or null for standard output
     * @param memoryLimit DuckDB's memory limit, or null for its default
     * @param settings the device analyses' cut-offs and {@code sequences}' operator
     */
    public record Analyze(List<Path> inputs, List<String> analyses, Engine engine, String remote, Format format,
            Path output, String memoryLimit, DeviceAnalyses.Settings settings) {

        public Analyze {
            inputs = List.copyOf(inputs);
            analyses = List.copyOf(analyses);
            if (inputs.isEmpty()) {
                throw new IllegalArgumentException("analyze takes at least one trace file or directory");
            }
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(settings, "settings");
        }

        /** The first input: the directory of Parquet trace folders, for the SQL analyses. */
        public Path dir() {
            return inputs.get(0);
        }
    }

    /**
     * {@code vantage convert}.
     *
     * @param inputs trace files and directories of them
     * @param output the directory the Parquet folders go into
     * @param jobId the job every trace belongs to, or null to take it from the directories
     * @param strict whether a damaged trace is refused ({@code --strict}) rather than read with repairs
     */
    public record Convert(List<Path> inputs, Path output, String jobId, boolean strict) {
        /** Damaged traces read with repairs. */
        public Convert(List<Path> inputs, Path output, String jobId) {
            this(inputs, output, jobId, false);
        }

        public Convert {
            inputs = List.copyOf(inputs);
            Objects.requireNonNull(output, "output");
        }
    }

    /**
     * {@code vantage merge}.
     *
     * @param inputs the ranks' trace files and directories of them
     * @param output the merged trace, Kineto JSON ({@code .json} or {@code .json.gz}) or Perfetto's protobuf
     *     ({@code .pftrace} or {@code .pftrace.gz})
     * @param strict whether a damaged trace is refused ({@code --strict}) rather than read with repairs
     */
    public record Merge(List<Path> inputs, Path output, boolean strict) {
        public Merge {
            inputs = List.copyOf(inputs);
            Objects.requireNonNull(output, "output");
        }
    }
}
