package dev.vantage.analysis;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

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
     */
    public record Compare(List<String> runs, Path dir, Path output, int top, Format format) {
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
     */
    public record Report(String input, Path dir, Path output) {
        public Report {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(dir, "dir");
            Objects.requireNonNull(output, "output");
        }
    }

    /**
     * {@code vantage analyze}.
     *
     * @param dir the directory of Parquet trace folders
     * @param remote a Spark Connect address for {@link Engine#SPARK}, else null
     * @param output the file to write, or null for standard output
     * @param memoryLimit DuckDB's memory limit, or null for its default
     */
    public record Analyze(Path dir, Engine engine, String remote, Format format, Path output, String memoryLimit) {
        public Analyze {
            Objects.requireNonNull(dir, "dir");
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(format, "format");
        }
    }

    /**
     * {@code vantage convert}.
     *
     * @param inputs trace files and directories of them
     * @param output the directory the Parquet folders go into
     * @param jobId the job every trace belongs to, or null to take it from the directories
     */
    public record Convert(List<Path> inputs, Path output, String jobId) {
        public Convert {
            inputs = List.copyOf(inputs);
            Objects.requireNonNull(output, "output");
        }
    }
}
