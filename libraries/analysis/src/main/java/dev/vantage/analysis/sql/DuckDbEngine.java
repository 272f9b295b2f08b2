package dev.vantage.analysis.sql;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import org.duckdb.DuckDBDriver;

/**
 * Runs analyses on DuckDB, embedded and in memory: the four tables are views over the Parquet files (DuckDB reads
 * only the columns and row groups a query needs, so nothing is loaded up front), and what a query cannot hold in
 * memory spills to a temporary directory that {@link #close()} removes. The driver is created directly, not through
 * {@code DriverManager}, which would not see it from the class loader the launcher runs analysis in.
 *
 * <p>Not thread-safe: one query at a time.
 */
public final class DuckDbEngine implements SqlEngine {

    private final Connection connection;
    private final Path spill;
    private final String memoryLimit;
    private final List<SpilledRows> files = new ArrayList<>();
    /** Rows of one result held in memory at most ({@link #HELD_ROWS}; fewer in tests). */
    int heldRows = HELD_ROWS;

    private DuckDbEngine(Connection connection, Path spill, String memoryLimit) {
        this.connection = connection;
        this.spill = spill;
        this.memoryLimit = memoryLimit;
    }

    /**
     * Opens an in-memory database with the views {@code events}, {@code kernels}, {@code memory}, {@code steps}.
     *
     * @param folders the Parquet files
     * @param memoryLimit DuckDB's memory limit, such as {@code 1GB}, or {@code null} for DuckDB's default (80 % of
     *        the machine's memory)
     * @throws SQLException if DuckDB cannot start or read the files
     */
    public static DuckDbEngine open(TraceFolders folders, String memoryLimit) throws SQLException, IOException {
        Path spill = Files.createTempDirectory("vantage-analyze-");
        Properties properties = new Properties();
        // rows come from DuckDB as they are read, in chunks: a materialized result of a fleet's per-event table
        // stayed in the driver's native memory whole, beside the heap and outside DuckDB's memory limit
        properties.setProperty(DuckDBDriver.JDBC_STREAM_RESULTS, "true");
        Connection c = new DuckDBDriver().connect("jdbc:duckdb:", properties);
        try (Statement s = c.createStatement()) {
            s.execute("SET temp_directory = " + literal(spill.toString()));
            s.execute("SET preserve_insertion_order = false");
            if (memoryLimit != null) {
                s.execute("SET memory_limit = " + literal(memoryLimit));
            }
            for (String table : Query.TABLES) {
                StringBuilder list = new StringBuilder();
                for (Path file : folders.files().get(table)) {
                    list.append(list.length() == 0 ? "" : ", ").append(literal(file.toString()));
                }
                s.execute("CREATE VIEW " + table + " AS SELECT * FROM read_parquet([" + list + "])");
            }
        } catch (SQLException e) {
            c.close();
            deleteTree(spill);
            throw explain(e, memoryLimit);
        } catch (RuntimeException e) {
            c.close();
            deleteTree(spill);
            throw e;
        }
        return new DuckDbEngine(c, spill, memoryLimit);
    }

    private static final java.util.regex.Pattern NOT_PARQUET = java.util.regex.Pattern.compile(
            "(?:No magic bytes found at end of file|too small to be a Parquet file|is not a parquet file)", 
            java.util.regex.Pattern.CASE_INSENSITIVE);
    private static final java.util.regex.Pattern QUOTED_FILE = java.util.regex.Pattern.compile("'([^']+)'");

    /**
     * DuckDB's error in the user's words: the line that says what failed (DuckDB's JDBC driver leads with one about
     * its pending result), without its SQL context and advice about settings. A Parquet file that is cut short or
     * not Parquet is bad input ({@link IllegalArgumentException}, naming the file); running out of the memory limit
     * names {@code --memory-limit}.
     */
    static RuntimeException explain(SQLException e, String memoryLimit) {
        String text = e.getMessage() == null ? "" : e.getMessage();
        String line = text.lines().filter(l -> l.startsWith("Error: ")).findFirst().map(l -> l.substring(7))
                .orElse(text.lines().findFirst().orElse(e.getClass().getSimpleName()));
        String what = line.replaceFirst("^[A-Za-z ]+ Error: ", "");
        if (NOT_PARQUET.matcher(what).find()) {
            java.util.regex.Matcher file = QUOTED_FILE.matcher(what);
            return new IllegalArgumentException("analyze: " + (file.find() ? file.group(1) : "a file")
                    + " is not a whole Parquet file (cut short, or not Parquet): " + what);
        }
        if (line.startsWith("Out of Memory Error")) {
            return new IllegalStateException(memoryLimit == null ? "DuckDB ran out of memory (" + what + ")"
                    : "DuckDB needs more memory than --memory-limit " + memoryLimit + " allows (" + what
                            + "); raise it");
        }
        return new IllegalStateException("DuckDB: " + what, e);
    }

    /** Runs one analysis and returns its rows. */
    @Override
    public ResultTable run(Query analysis) throws SQLException {
        try {
            return query(analysis);
        } catch (SQLException e) {
            throw explain(e, memoryLimit);
        }
    }

    private ResultTable query(Query analysis) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet r = s.executeQuery(analysis.sql(Query.Dialect.DUCKDB))) {
            ResultSetMetaData m = r.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= m.getColumnCount(); i++) {
                columns.add(m.getColumnLabel(i));
            }
            List<List<Object>> rows = new ArrayList<>();
            SpilledRows file = null;
            while (r.next()) {
                List<Object> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    row.add(ResultTable.plain(r.getObject(i)));
                }
                rows.add(row);
                if (rows.size() == heldRows) {
                    // a per-event table (a row per launch) of a fleet: to a file beside DuckDB's own spill
                    if (file == null) {
                        file = spilled(analysis.name(), columns.size());
                    }
                    file.append(0, rows);
                    rows = new ArrayList<>();
                }
            }
            if (file != null) {
                file.append(0, rows);
                return new ResultTable(analysis.name(), columns, file);
            }
            return new ResultTable(analysis.name(), columns, rows);
        }
    }

    /** Rows of one result held in memory at most; a longer result goes to a file, read back as it is written. */
    static final int HELD_ROWS = 1 << 16;

    private SpilledRows spilled(String name, int columns) throws SQLException {
        try {
            SpilledRows file = new SpilledRows(Files.createTempFile(spill, name + "-", ".rows"), columns);
            files.add(file);
            return file;
        } catch (IOException e) {
            throw new SQLException("cannot keep the rows of " + name + " in " + spill + ": " + e.getMessage(), e);
        }
    }

    /** Closes DuckDB and deletes its spill folder, with the files of long results: read them before. */
    @Override
    public void close() throws SQLException {
        try {
            connection.close();
        } finally {
            for (SpilledRows file : files) {
                try {
                    file.close();
                } catch (IOException e) {
                    // deleted with the folder below
                }
            }
            deleteTree(spill);
        }
    }

    static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a spill file left in the temporary directory is not the analysis's failure
        }
    }
}
