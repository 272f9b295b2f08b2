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
        List<String> names = TraceAnalyses.check(options.analyses(), traces, options.operator());
        List<ResultTable> results = new ArrayList<>();
        if (traces) {
            if (options.engine() != Options.Engine.DUCKDB || options.memoryLimit() != null) {
                throw new IllegalArgumentException("--engine and --memory-limit are for Parquet trace folders; the"
                        + " trace engine reads trace files itself");
            }
            // the job's per-event series are read back from its files as they are written, then deleted
            try (TraceAnalyses.Job job = TraceAnalyses.run(TraceAnalyses.traces(options.inputs()), names,
                    options.runtimeCutoffUs(), options.launchDelayCutoffUs(), options.kernelWaitUs(),
                    options.maxQueueLength(), options.operator(), options.minPatternLength(), err)) {
                write(format, job.tables(), options.output(), out);
            }
            return 0;
        } else {
            TraceFolders folders = TraceFolders.find(options.dir());
            try (SqlEngine db = options.engine() == Options.Engine.SPARK
                    ? SparkConnect.open(options.remote(), folders) : DuckDbEngine.open(folders, options.memoryLimit())) {
                for (Query a : Query.all(Query.settings(options.runtimeCutoffUs(),
                        options.launchDelayCutoffUs(), options.kernelWaitUs(), options.maxQueueLength()))) {
                    if (names.contains(a.analysis())) {
                        results.add(a.named(db.run(a)));
                    }
                }
                // written while the engine is open: a long result is read back from its file
                write(format, results, options.output(), out);
            }
        }
        return 0;
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
