package dev.vantage.exporter.parquet.internal;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The independent reader of the tests: DuckDB, in memory, one query at a time, rows as column-name maps. */
final class DuckDb {

    private DuckDb() {
    }

    static List<Map<String, Object>> query(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            ResultSetMetaData m = r.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (r.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    row.put(m.getColumnLabel(i), r.getObject(i));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    static long count(String sql) throws SQLException {
        return ((Number) query(sql).get(0).values().iterator().next()).longValue();
    }

    /** Quotes a path as an SQL string literal. */
    static String literal(java.nio.file.Path p) {
        return "'" + p.toString().replace("'", "''") + "'";
    }
}
