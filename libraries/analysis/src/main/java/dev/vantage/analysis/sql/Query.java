package dev.vantage.analysis.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.vantage.trace.engine.summary.Stragglers;

/**
 * One query of {@code vantage analyze}: a name and one SQL {@code SELECT} over the views {@code events},
 * {@code kernels}, {@code memory} and {@code steps}, read from {@code dev/vantage/analysis/sql/<name>.sql}. The files
 * are written in the SQL that DuckDB and Spark share (see the README beside them), so any engine runs them as they
 * are. The placeholder {@code ${straggler_ratio}} stands for {@link Stragglers#RATIO}.
 *
 * @param name the analysis name, the file name without {@code .sql}
 * @param sql the statement, without a trailing {@code ;}
 */
public record Query(String name, String sql) {

    /** The placeholder in the SQL files that stands for {@link Stragglers#RATIO}. */
    static final String STRAGGLER_PLACEHOLDER = "${straggler_ratio}";

    /** The analyses in the order {@code analyze} prints them. */
    public static final List<String> NAMES = List.of("step_time", "stragglers", "overlap", "idle_time", "top_ops");

    /** The tables the SQL reads, each a view over one file name of every trace folder. */
    public static final List<String> TABLES = List.of("events", "kernels", "memory", "steps");

    public Query {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(sql, "sql");
    }

    /** Returns every analysis, read from the class path. */
    public static List<Query> all() {
        List<Query> all = new ArrayList<>();
        for (String name : NAMES) {
            all.add(load(name));
        }
        return all;
    }

    /**
     * Returns one analysis.
     *
     * @throws IllegalArgumentException if there is no analysis of that name
     */
    public static Query load(String name) {
        String resource = name + ".sql";
        try (InputStream in = Query.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no analysis '" + name + "'; known: " + String.join(", ", NAMES));
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            if (sql.endsWith(";")) {
                sql = sql.substring(0, sql.length() - 1);
            }
            // one definition, shared with vantage report
            sql = sql.replace(STRAGGLER_PLACEHOLDER, Double.toString(Stragglers.RATIO));
            return new Query(name, sql);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
