package dev.vantage.analysis;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.analysis.sql.DuckDbEngine;
import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.ResultWriter;
import dev.vantage.analysis.sql.SparkConnect;
import dev.vantage.analysis.sql.SqlEngine;
import dev.vantage.analysis.sql.TraceFolders;

/**
 * {@code vantage analyze TRACE|DIR... [--analysis NAME[,NAME...]] [--engine duckdb|spark] [--remote sc://HOST:PORT]
 * [--format table|csv|json] [-o FILE] [--memory-limit SIZE]}. On trace files and folders of rank traces, the trace
 * engine's device analyses ({@link TraceAnalyses}); on one directory of Parquet trace folders, the cross-rank SQL
 * analyses ({@link Query#NAMES}, SQL files in {@code dev/vantage/analysis/sql/}) over every folder under it, run on
 * DuckDB embedded or on a Spark cluster through Spark Connect ({@link SparkConnect}). Every argument is checked, and the folders found, before DuckDB
 * starts. {@code -o FILE} is written as compare and report write theirs: under a temporary name, then renamed.
 */
final class AnalyzeCommand {

    private AnalyzeCommand() {
    }

    static int run(Options.Analyze options, PrintStream out, PrintStream err) throws Exception {
        String format = options.format().spelling();
        boolean traces = TraceAnalyses.areTraces(options.inputs());
        List<String> names = TraceAnalyses.check(options.analyses(), traces, options.settings().operator());
        List<ResultTable> results = new ArrayList<>();
        if (traces) {
            if (options.engine() != Options.Engine.DUCKDB || options.memoryLimit() != null) {
                throw new IllegalArgumentException("--engine and --memory-limit are for Parquet trace folders; the"
                        + " trace engine reads trace files itself");
            }
            // the job's per-event series are read back from its files as they are written, then deleted
            try (TraceAnalyses.Job job = TraceAnalyses.run(TraceAnalyses.traces(options.inputs()), names,
                    options.settings(), err)) {
                write(format, job.tables(), options.output(), out);
            }
            return 0;
        } else {
            List<Query> queries = Query.all(options.settings()).stream().filter(a -> names.contains(a.analysis()))
                    .toList();
            TraceFolders folders = TraceFolders.find(options.dir());
            try (SqlEngine db = options.engine() == Options.Engine.SPARK
                    ? SparkConnect.open(options.remote(), folders) : DuckDbEngine.open(folders, options.memoryLimit())) {
                for (Query a : runnable(db, queries, !options.analyses().isEmpty(), err)) {
                    results.add(a.named(db.run(a)));
                }
                // written while the engine is open: a long result is read back from its file
                write(format, results, options.output(), out);
            }
        }
        return 0;
    }

    /**
     * The queries the folders have the columns for. An analysis of the trace engine's written as SQL reads a column
     * that folders written by an older Parquet exporter lack ({@link Query#requires}): asked for by name, it is refused
     * before anything runs; among every analysis (none named), it is left out with one line on {@code err}.
     */
    private static List<Query> runnable(SqlEngine db, List<Query> queries, boolean named, PrintStream err)
            throws Exception {
        if (queries.stream().allMatch(q -> q.requires().isEmpty())) {
            // nothing to ask the folders (on Spark Connect, a round trip a table)
            return queries;
        }
        java.util.Set<String> present = new java.util.HashSet<>();
        for (String table : Query.TABLES) {
            for (String column : db.run(new Query(table + "_columns", "SELECT * FROM " + table + " WHERE 1 = 0"))
                    .columns()) {
                present.add(table + "." + column);
            }
        }
        List<Query> out = new ArrayList<>();
        java.util.Set<String> left = new java.util.LinkedHashSet<>();
        java.util.Set<String> missing = new java.util.TreeSet<>();
        for (Query q : queries) {
            List<String> lacking = q.requires().stream().filter(c -> !present.contains(c)).toList();
            if (lacking.isEmpty()) {
                out.add(q);
            } else {
                left.add(q.analysis());
                missing.addAll(lacking);
            }
        }
        if (!left.isEmpty()) {
            String why = String.join(", ", left) + " need" + (left.size() == 1 ? "s " : " ") + String.join(", ", missing)
                    + ", which Parquet trace folders written before exporter-parquet " + Query.writtenSince(missing)
                    + " lack: write them again"
                    + " (vantage convert TRACE... -o DIR, or a profile with --profile-export parquet)";
            if (named) {
                throw new IllegalArgumentException("--analysis " + why);
            }
            err.println("vantage: left out: " + why);
        }
        return out;
    }

    /**
     * Writes the results to {@code out}, or to {@code target}: a failure while writing leaves a file that was there
     * as it was, and never half a file under the target's name.
     *
     * @param target the {@code -o} file, or null for {@code out}
     */
    static void write(String format, List<ResultTable> results, Path target, PrintStream out) throws IOException {
        if (target == null) {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            ResultWriter.write(format, results, w);
        } else {
            TraceInputs.writeAtomically(target, w -> ResultWriter.write(format, results, w));
        }
    }
}
