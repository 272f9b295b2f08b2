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
 * {@code vantage analyze DIR [--engine duckdb|spark] [--remote sc://HOST:PORT] [--format table|csv|json] [-o FILE]
 * [--memory-limit SIZE]}: the cross-rank analyses ({@link Query#NAMES}, SQL files in
 * {@code dev/vantage/analysis/sql/}) over every Parquet trace folder under DIR, run on DuckDB embedded or on a Spark
 * cluster through Spark Connect ({@link SparkConnect}). Every argument is checked, and the folders found, before DuckDB
 * starts. {@code -o FILE} is written as compare and report write theirs: under a temporary name, then renamed.
 */
final class AnalyzeCommand {

    private AnalyzeCommand() {
    }

    static int run(Options.Analyze options, PrintStream out) throws Exception {
        String format = options.format().spelling();
        String memoryLimit = options.memoryLimit();
        TraceFolders folders = TraceFolders.find(options.dir());

        List<ResultTable> results = new ArrayList<>();
        try (SqlEngine db = options.engine() == Options.Engine.SPARK
                ? SparkConnect.open(options.remote(), folders) : DuckDbEngine.open(folders, memoryLimit)) {
            for (Query a : Query.all()) {
                results.add(db.run(a));
            }
        }
        write(format, results, options.output(), out);
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
