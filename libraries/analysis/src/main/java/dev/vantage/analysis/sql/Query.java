package dev.vantage.analysis.sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.vantage.trace.engine.device.DeviceAnalyses;
import dev.vantage.trace.engine.device.DeviceTables;
import dev.vantage.trace.engine.summary.Stragglers;

/**
 * One query of {@code vantage analyze}: a name and one SQL {@code SELECT} over the views {@code events},
 * {@code kernels}, {@code memory} and {@code steps}, read from {@code dev/vantage/analysis/sql/<name>.sql}. The files
 * are written in the SQL that DuckDB and Spark share (see the README beside them), so any engine runs them as they
 * are. The placeholder {@code ${straggler_ratio}} stands for {@link Stragglers#RATIO}.
 *
 * <p>An analysis that {@code analyze} also runs on trace files ({@code temporal}, {@code kernels}, {@code launch},
 * {@code idle}, {@code queue}, {@code bandwidth}, {@code sequences}, {@code gpu}) gives on Parquet folders the tables
 * of the same names with the same columns (HTA's, from the trace engine's {@link DeviceTables}), {@code job_id} first: the SQL names its
 * columns plainly ({@code idle_us}) and {@link #named} gives them HTA's names, which neither dialect quotes alike.
 *
 * @param name the table's name, the file name without {@code .sql}
 * @param sql the statement, without a trailing {@code ;}
 * @param columns the names {@code analyze} prints for the SQL's columns, in order, or null for the SQL's own
 * @param requires the columns ({@code table.column}) the query reads that Parquet folders written by an older
 *     exporter lack ({@code events.flow_id}, exporter-parquet 0.3.0; {@code kernels.blocks_per_sm}, 0.4.0)
 */
public record Query(String name, String sql, List<String> columns, List<String> requires) {

    /** The placeholder in the SQL files that stands for {@link Stragglers#RATIO}. */
    static final String STRAGGLER_PLACEHOLDER = "${straggler_ratio}";

    /** The analyses in the order {@code analyze} prints them. */
    public static final List<String> NAMES = List.of("step_time", "stragglers", "overlap", "idle_time", "top_ops",
            "temporal", "kernels", "launch", "idle", "queue", "bandwidth", "sequences", "gpu");

    /**
     * The SQL engines whose spelling differs where the shared SQL has nothing: an aggregate that joins strings in an
     * order ({@code ${pattern}} in {@code sequences.sql}).
     */
    public enum Dialect {
        /** DuckDB: {@code string_agg(x, s ORDER BY k)}, which leaves out nulls (the rows that are not work). */
        DUCKDB("string_agg(h.work_name, '|' ORDER BY h.work_start_ns, h.work_id)"),
        /**
         * Spark: the work's values collected (a null, for a row that is not work, is not), sorted as structs of the
         * order's keys and joined, which Spark 3.5 runs too
         * (Spark 4's {@code string_agg(x, s) WITHIN GROUP (ORDER BY k)} is not in 3.5).
         */
        SPARK("array_join(transform(array_sort(collect_list(CASE WHEN h.work_name IS NOT NULL THEN named_struct('s',"
                + " h.work_start_ns, 'i', h.work_id, 'n', h.work_name) END)), x -> x.n), '|')");

        private final String pattern;

        Dialect(String pattern) {
            this.pattern = pattern;
        }
    }

    /** The placeholder of the dialect's ordered string aggregate. */
    static final String PATTERN_PLACEHOLDER = "${pattern}";

    /** The tables the SQL reads, each a view over one file name of every trace folder. */
    public static final List<String> TABLES = List.of("events", "kernels", "memory", "steps");

    /**
     * The common table expressions several files share, each in {@code <name>.cte} beside them and put in place of
     * {@code ${name}} (in this order: a fragment may use the ones before it).
     */
    static final List<String> FRAGMENTS = List.of("counted_work", "launches", "queue_points", "copies",
            "description");

    /** The columns a fragment or a file reads that Parquet folders written by an older exporter lack. */
    private static final Map<String, List<String>> REQUIRES = Map.of("counted_work",
            List.of("events.flow_id", "kernels.bytes", "kernels.memory_bandwidth_gbps"),
            "gpu", List.of("kernels.blocks_per_sm", "kernels.est_achieved_occupancy_pct"));

    /** The exporter-parquet version that first wrote each column of {@link #REQUIRES}. */
    private static final Map<String, String> SINCE = Map.of("events.flow_id", "0.3.0", "kernels.bytes", "0.3.0",
            "kernels.memory_bandwidth_gbps", "0.3.0", "kernels.blocks_per_sm", "0.4.0",
            "kernels.est_achieved_occupancy_pct", "0.4.0");

    /** The exporter-parquet version that first wrote all of these columns (each one {@link #requires} names). */
    public static String writtenSince(java.util.Collection<String> columns) {
        return writtenSince(columns, SINCE);
    }

    /** The latest of the versions that first wrote these columns, by number (0.10.0 after 0.4.0), in {@code since}. */
    static String writtenSince(java.util.Collection<String> columns, Map<String, String> since) {
        return columns.stream().map(c -> since.getOrDefault(c, "0.3.0")).max(Query::byNumber).orElse("0.3.0");
    }

    /** Orders two dotted versions by their numbers, part by part; a missing part is 0. */
    private static int byNumber(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int c = Integer.compare(i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** A fragment's common table expressions, without its comment lines. */
    private static String fragment(String name) throws IOException {
        try (InputStream in = Query.class.getResourceAsStream(name + ".cte")) {
            if (in == null) {
                throw new IllegalStateException("no " + name + ".cte beside the analysis SQL");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.strip().startsWith("--")).collect(java.util.stream.Collectors.joining("\n"))
                    .strip();
        }
    }

    /** The analyses of more than one table: their files, in order; any other analysis is its one file. */
    private static final Map<String, List<String>> FILES = Map.of("kernels", List.of("kernel_types", "kernels"),
            "launch", List.of("launch_summary", "launch"), "queue", List.of("queue_length_summary", "queue_length"),
            "bandwidth", List.of("memory_bw_summary", "memory_bw"));

    public Query {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(sql, "sql");
        columns = columns == null ? null : List.copyOf(columns);
        requires = requires == null ? List.of() : List.copyOf(requires);
    }

    /** A query whose columns are printed as the SQL names them, which needs no column of a newer exporter. */
    public Query(String name, String sql) {
        this(name, sql, null, List.of());
    }

    private static List<String> withJob(List<String> columns) {
        List<String> out = new ArrayList<>();
        out.add("job_id");
        out.addAll(columns);
        return List.copyOf(out);
    }

    /** The {@code --analysis} name this query's table belongs to. */
    public String analysis() {
        return FILES.entrySet().stream().filter(e -> e.getValue().contains(name)).map(Map.Entry::getKey).findFirst()
                .orElse(name);
    }

    /** The statement as an engine of this dialect runs it. */
    public String sql(Dialect dialect) {
        return sql.replace(PATTERN_PLACEHOLDER, dialect.pattern);
    }

    /**
     * The query's result with the column names {@code analyze} prints.
     *
     * @throws IllegalStateException if the SQL returned another number of columns
     */
    public ResultTable named(ResultTable result) {
        if (columns == null) {
            return result;
        }
        if (result.columns().size() != columns.size()) {
            throw new IllegalStateException(name + ".sql returned " + result.columns() + " for " + columns);
        }
        return new ResultTable(result.name(), columns, result.rows());
    }

    /** The placeholders of {@code sequences}' operator and shortest pattern. */
    static final String OPERATOR_PLACEHOLDER = "${operator}";
    static final String MIN_PATTERN_PLACEHOLDER = "${min_pattern_length}";

    /**
     * The values of the SQL's placeholders: {@code ${runtime_cutoff_us}} and {@code ${launch_delay_cutoff_us}}
     * ({@code launch}'s cut-offs), {@code ${kernel_wait_us}} ({@code idle}'s), in microseconds; {@code
     * ${max_queue_length}} ({@code queue}'s); {@code ${operator}} and {@code ${min_pattern_length}} ({@code
     * sequences}', which runs only with an operator); {@code ${straggler_ratio}} is always {@link Stragglers#RATIO}.
     *
     * @throws IllegalArgumentException if the operator holds a quote or a backslash, which the SQL's string literal
     *     would take for its own
     */
    private static Map<String, String> placeholders(DeviceAnalyses.Settings s) {
        Map<String, String> values = new java.util.HashMap<>(Map.of("${runtime_cutoff_us}",
                Long.toString(s.runtimeCutoffUs()), "${launch_delay_cutoff_us}", Long.toString(s.launchDelayCutoffUs()),
                "${kernel_wait_us}", Long.toString(s.kernelWaitUs()), "${max_queue_length}",
                Integer.toString(s.maxQueueLength()), MIN_PATTERN_PLACEHOLDER, Integer.toString(s.minPatternLength())));
        if (s.operator() != null) {
            if (s.operator().contains("'") || s.operator().contains("\\")) {
                throw new IllegalArgumentException("--operator '" + s.operator() + "' holds a quote or a backslash,"
                        + " which the SQL of Parquet trace folders does not take");
            }
            values.put(OPERATOR_PLACEHOLDER, s.operator());
        }
        return values;
    }

    /**
     * Returns every query with HTA's cut-offs, read from the class path, in the order of {@link #NAMES}; no {@code
     * sequences}, which needs an operator.
     */
    public static List<Query> all() {
        return all(DeviceAnalyses.Settings.HTA);
    }

    /** Returns every query with HTA's cut-offs, {@code sequences} under an operator among them. */
    public static List<Query> all(String operator) {
        return all(DeviceAnalyses.Settings.HTA.withOperator(operator));
    }

    /**
     * Returns every query with the settings given, in the order of {@link #NAMES}; {@code sequences} only when the
     * settings name an operator.
     *
     * @throws IllegalArgumentException if the operator holds a quote or a backslash
     */
    public static List<Query> all(DeviceAnalyses.Settings settings) {
        Map<String, String> values = placeholders(settings);
        List<Query> all = new ArrayList<>();
        for (String name : NAMES) {
            if (name.equals("sequences") && settings.operator() == null) {
                continue;
            }
            for (String file : FILES.getOrDefault(name, List.of(name))) {
                all.add(load(file, values));
            }
        }
        return all;
    }

    /**
     * Returns one query by its file name.
     *
     * @throws IllegalArgumentException if there is no analysis of that name
     */
    public static Query load(String name) {
        return load(name, placeholders(DeviceAnalyses.Settings.HTA));
    }

    private static Query load(String name, Map<String, String> settings) {
        String resource = name + ".sql";
        try (InputStream in = Query.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no analysis '" + name + "'; known: " + String.join(", ", NAMES));
            }
            String sql = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
            if (sql.endsWith(";")) {
                sql = sql.substring(0, sql.length() - 1);
            }
            // the common table expressions several files share, each defined once in its .cte file
            List<String> requires = new ArrayList<>();
            for (String fragment : FRAGMENTS) {
                String placeholder = "${" + fragment + "}";
                if (sql.contains(placeholder)) {
                    sql = sql.replace(placeholder, fragment(fragment));
                    requires.addAll(REQUIRES.getOrDefault(fragment, List.of()));
                }
            }
            requires.addAll(REQUIRES.getOrDefault(name, List.of()));
            // one definition, shared with vantage report
            sql = sql.replace(STRAGGLER_PLACEHOLDER, Double.toString(Stragglers.RATIO));
            for (Map.Entry<String, String> e : settings.entrySet()) {
                sql = sql.replace(e.getKey(), e.getValue());
            }
            // a table the trace engine also gives from trace files: its columns, job_id first
            return new Query(name, sql, DeviceTables.has(name) ? withJob(DeviceTables.columns(name)) : null, requires);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
