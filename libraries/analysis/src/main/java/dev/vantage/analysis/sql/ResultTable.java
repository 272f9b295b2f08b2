package dev.vantage.analysis.sql;

import java.util.List;
import java.util.Objects;

/**
 * The rows one analysis returned, with values as plain Java objects: {@code Long} for integers, {@code Double}
 * for fractions, {@code String}, {@code Boolean}, or {@code null}.
 *
 * @param name the analysis name
 * @param columns the column names, in order
 * @param rows the rows, each with one value per column
 */
public record ResultTable(String name, List<String> columns, List<List<Object>> rows) {

    public ResultTable {
        Objects.requireNonNull(name, "name");
        columns = List.copyOf(columns);
        rows = rows instanceof Produced ? rows : List.copyOf(rows);
    }

    /**
     * Rows made as they are read, a part at a time (one rank's series, say), so that a long table is never held
     * whole: the table keeps such rows as they are instead of copying them. Read them in order; reading one again
     * makes its part again.
     */
    public abstract static class Produced extends java.util.AbstractList<List<Object>> {
    }

    /** Returns the index of a column, or -1. */
    public int column(String column) {
        return columns.indexOf(column);
    }

    /**
     * Returns a value made plain: integers of every width as {@code Long}, decimals and floats as {@code Double}.
     *
     * @throws IllegalArgumentException for a type an analysis never returns
     */
    public static Object plain(Object value) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Long
                || value instanceof Double) {
            return value;
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof java.math.BigInteger b) {
            return b.longValueExact();
        }
        if (value instanceof java.math.BigDecimal || value instanceof Float) {
            return ((Number) value).doubleValue();
        }
        throw new IllegalArgumentException("an analysis returned a " + value.getClass().getName());
    }
}
