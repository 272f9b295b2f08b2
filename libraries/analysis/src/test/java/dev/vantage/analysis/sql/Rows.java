package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

/** Compares the rows of two engines: equal values, doubles within a relative 1e-9 (summation order differs). */
final class Rows {

    private Rows() {
    }

    static void assertSameRows(String analysis, ResultTable expected, ResultTable actual) {
        assertEquals(analysis + " columns", expected.columns(), actual.columns());
        assertEquals(analysis + " row count", expected.rows().size(), actual.rows().size());
        for (int r = 0; r < expected.rows().size(); r++) {
            List<Object> e = expected.rows().get(r);
            List<Object> a = actual.rows().get(r);
            for (int c = 0; c < e.size(); c++) {
                String where = analysis + " row " + r + " column " + expected.columns().get(c) + ": " + e + " vs " + a;
                Object x = e.get(c);
                Object y = a.get(c);
                if (x instanceof Double dx && y instanceof Double dy) {
                    double scale = Math.max(1.0, Math.max(Math.abs(dx), Math.abs(dy)));
                    assertTrue(where, Math.abs(dx - dy) <= 1e-9 * scale);
                } else {
                    assertEquals(where, x, y);
                }
            }
        }
    }
}
