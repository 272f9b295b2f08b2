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

    private DuckDbEngine(Connection connection, Path spill) {
        this.connection = connection;
        this.spill = spill;
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
        } catch (SQLException | RuntimeException e) {
            c.close();
            deleteTree(spill);
            throw e;
        }
        return new DuckDbEngine(c, spill);
    }

    /** Runs one analysis and returns its rows. */
    @Override
    public ResultTable run(Query analysis) throws SQLException {
        try (Statement s = connection.createStatement(); ResultSet r = s.executeQuery(analysis.sql())) {
            ResultSetMetaData m = r.getMetaData();
            List<String> columns = new ArrayList<>();
            for (int i = 1; i <= m.getColumnCount(); i++) {
                columns.add(m.getColumnLabel(i));
            }
            List<List<Object>> rows = new ArrayList<>();
            while (r.next()) {
                List<Object> row = new ArrayList<>(columns.size());
                for (int i = 1; i <= columns.size(); i++) {
                    row.add(ResultTable.plain(r.getObject(i)));
                }
                rows.add(row);
            }
            return new ResultTable(analysis.name(), columns, rows);
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            connection.close();
        } finally {
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
