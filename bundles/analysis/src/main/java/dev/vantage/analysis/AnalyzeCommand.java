package dev.vantage.analysis;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import dev.vantage.analysis.sql.Analysis;
import dev.vantage.analysis.sql.DuckDbEngine;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.ResultWriter;
import dev.vantage.analysis.sql.TraceFolders;

/**
 * {@code vantage analyze DIR [--engine duckdb] [--format table|csv|json] [-o FILE] [--memory-limit SIZE]}: the
 * cross-rank analyses ({@link Analysis#NAMES}, SQL files in {@code dev/vantage/analysis/sql/}) over every Parquet
 * trace folder under DIR, run on DuckDB embedded. Every argument is checked, and the folders found, before DuckDB
 * starts.
 */
final class AnalyzeCommand {

    static final String HELP = String.join("\n",
            "usage: vantage analyze DIR [--engine duckdb] [--format table|csv|json] [-o FILE] [--memory-limit SIZE]",
            "",
            "Cross-rank analysis of the Parquet traces under DIR (every *_parquet folder, at any depth, as written by",
            "--profile-export parquet): per-step time per rank, straggler ranks, communication/compute overlap, device",
            "idle time within steps and the top ops over all ranks, grouped by job (the ranks of one launch). The",
            "analyses are SQL files that run unchanged on DuckDB (embedded, the default) and on Apache Spark (see",
            "docs/analysis.md).",
            "",
            "  --engine duckdb       the SQL engine (only duckdb runs here; Spark runs the same files on a cluster)",
            "  --format F            table (default: a summary naming the slowest rank and the overlap, then each",
            "                        analysis, times in ms, at most 20 rows each), csv or json (every row, ns)",
            "  -o, --output FILE     write to FILE instead of standard output",
            "  --memory-limit SIZE   DuckDB's memory limit, such as 512MB or 2GB (default: 80% of the machine's);",
            "                        what does not fit spills to a temporary directory",
            "",
            "No Parquet trace under DIR, an unknown engine or format, or a bad argument is exit code 2.",
            "");

    static final List<String> ENGINES = List.of("duckdb");
    private static final Pattern SIZE = Pattern.compile("\\d+(\\.\\d+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)",
            Pattern.CASE_INSENSITIVE);

    private AnalyzeCommand() {
    }

    static int run(List<String> args, PrintStream out) throws IOException, SQLException {
        String dir = null;
        String engine = "duckdb";
        String format = "table";
        String output = null;
        String memoryLimit = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "--help", "-h" -> {
                    out.print(HELP);
                    return 0;
                }
                case "--engine" -> engine = value(args, ++i, arg);
                case "--format" -> format = value(args, ++i, arg);
                case "-o", "--output" -> output = value(args, ++i, arg);
                case "--memory-limit" -> memoryLimit = value(args, ++i, arg);
                default -> {
                    if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("analyze: unknown option '" + arg + "'");
                    }
                    if (dir != null) {
                        throw new IllegalArgumentException("analyze: one DIR only, got '" + dir + "' and '" + arg
                                + "'");
                    }
                    dir = arg;
                }
            }
        }
        if (dir == null) {
            throw new IllegalArgumentException("analyze: which DIR? (vantage analyze DIR; --help for more)");
        }
        if (!ENGINES.contains(engine)) {
            throw new IllegalArgumentException("analyze: unknown engine '" + engine + "'; available: "
                    + String.join(", ", ENGINES));
        }
        if (!ResultWriter.FORMATS.contains(format)) {
            throw new IllegalArgumentException("analyze: unknown format '" + format + "'; available: "
                    + String.join(", ", ResultWriter.FORMATS));
        }
        if (memoryLimit != null && !SIZE.matcher(memoryLimit).matches()) {
            throw new IllegalArgumentException("analyze: --memory-limit '" + memoryLimit
                    + "' is not a size such as 512MB or 2GB");
        }
        Path target = output == null ? null : outputPath(output);
        TraceFolders folders = TraceFolders.find(path(dir, "DIR"));

        List<ResultTable> results = new ArrayList<>();
        try (DuckDbEngine db = DuckDbEngine.open(folders, memoryLimit)) {
            for (Analysis a : Analysis.all()) {
                results.add(db.run(a));
            }
        }
        if (target == null) {
            ResultWriter.write(format, results, out);
            out.flush();
        } else {
            try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(target));
                    PrintStream p = new PrintStream(file, false, StandardCharsets.UTF_8)) {
                ResultWriter.write(format, results, p);
            }
        }
        return 0;
    }

    private static String value(List<String> args, int i, String option) {
        return TraceInputs.optionValue("analyze: ", args, i, option);
    }

    private static Path path(String text, String what) {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("analyze: " + what + " '" + text + "' is not a path");
        }
    }

    private static Path outputPath(String text) {
        Path p = path(text, "-o").toAbsolutePath();
        if (Files.isDirectory(p)) {
            throw new IllegalArgumentException("analyze: -o '" + text + "' is a directory");
        }
        if (p.getParent() == null || !Files.isDirectory(p.getParent())) {
            throw new IllegalArgumentException("analyze: -o '" + text + "': no directory " + p.getParent());
        }
        return p;
    }
}
