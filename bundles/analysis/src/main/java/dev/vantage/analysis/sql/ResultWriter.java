package dev.vantage.analysis.sql;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * Prints analysis results as {@code table} (for a terminal: a summary naming the slowest rank and the overlap,
 * then each analysis with times in milliseconds, at most {@link #TABLE_ROWS} rows each), {@code csv} (every row, one
 * block per analysis: a {@code # name} line, the header, the rows, a blank line) or {@code json} (every row: an
 * object of analysis name to a list of row objects). csv and json keep the SQL's values as they are.
 */
public final class ResultWriter {

    /** The formats. */
    public static final List<String> FORMATS = List.of("table", "csv", "json");

    /** Rows per analysis in the table format. */
    public static final int TABLE_ROWS = 20;

    private ResultWriter() {
    }

    /**
     * Writes results.
     *
     * @throws IllegalArgumentException for an unknown format
     */
    public static void write(String format, List<ResultTable> results, PrintStream out) throws IOException {
        switch (format) {
            case "table" -> table(results, out);
            case "csv" -> csv(results, out);
            case "json" -> json(results, out);
            default -> throw new IllegalArgumentException("unknown format '" + format + "'");
        }
    }

    private static void json(List<ResultTable> results, PrintStream out) throws IOException {
        Map<String, List<Map<String, Object>>> doc = new LinkedHashMap<>();
        for (ResultTable t : results) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (List<Object> row : t.rows()) {
                Map<String, Object> o = new LinkedHashMap<>();
                for (int i = 0; i < t.columns().size(); i++) {
                    o.put(t.columns().get(i), row.get(i));
                }
                rows.add(o);
            }
            doc.put(t.name(), rows);
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(new NonClosing(out), doc);
        out.println();
    }

    private static void csv(List<ResultTable> results, PrintStream out) {
        boolean first = true;
        for (ResultTable t : results) {
            if (!first) {
                out.println();
            }
            first = false;
            out.println("# " + t.name());
            out.println(String.join(",", t.columns().stream().map(ResultWriter::csvField).toList()));
            for (List<Object> row : t.rows()) {
                List<String> cells = new ArrayList<>();
                for (Object v : row) {
                    // doubles in plain decimal notation (6.169571E7 is valid CSV but not what a spreadsheet shows)
                    String text = v instanceof Double d ? java.math.BigDecimal.valueOf(d).toPlainString()
                            : String.valueOf(v);
                    cells.add(v == null ? "" : csvField(text));
                }
                out.println(String.join(",", cells));
            }
        }
    }

    private static String csvField(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    private static void table(List<ResultTable> results, PrintStream out) {
        for (String line : Summary.lines(results)) {
            out.println(line);
        }
        for (ResultTable t : results) {
            out.println();
            out.println("== " + t.name() + " (" + t.rows().size() + (t.rows().size() == 1 ? " row)" : " rows)"));
            List<String> header = new ArrayList<>();
            for (String c : t.columns()) {
                header.add(c.endsWith("_ns") ? c.substring(0, c.length() - 3) + "_ms" : c);
            }
            boolean[] numeric = new boolean[header.size()];
            for (List<Object> row : t.rows()) {
                for (int i = 0; i < row.size(); i++) {
                    numeric[i] |= row.get(i) instanceof Number;
                }
            }
            List<List<String>> cells = new ArrayList<>();
            cells.add(header);
            for (List<Object> row : t.rows().subList(0, Math.min(TABLE_ROWS, t.rows().size()))) {
                List<String> line = new ArrayList<>();
                for (int i = 0; i < row.size(); i++) {
                    line.add(cell(t.columns().get(i), row.get(i)));
                }
                cells.add(line);
            }
            int[] width = new int[header.size()];
            for (List<String> line : cells) {
                for (int i = 0; i < line.size(); i++) {
                    width[i] = Math.max(width[i], line.get(i).length());
                }
            }
            for (List<String> line : cells) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < line.size(); i++) {
                    String v = line.get(i);
                    boolean right = numeric[i];
                    String pad = " ".repeat(width[i] - v.length());
                    b.append(i == 0 ? "" : "  ").append(right ? pad + v : v + pad);
                }
                out.println(b.toString().stripTrailing());
            }
            if (t.rows().size() > TABLE_ROWS) {
                out.println("... " + (t.rows().size() - TABLE_ROWS) + " more rows (--format csv or json prints all)");
            }
        }
    }

    /** A value for the table: nanoseconds as milliseconds, fractions rounded, null as {@code -}. */
    static String cell(String column, Object value) {
        if (value == null) {
            return "-";
        }
        if (column.endsWith("_ns") && value instanceof Number n) {
            return String.format(Locale.ROOT, "%.3f", n.doubleValue() / 1e6);
        }
        if (value instanceof Double d) {
            return String.format(Locale.ROOT, column.endsWith("_pct") ? "%.1f" : "%.3f", d);
        }
        return String.valueOf(value);
    }

    /** Keeps Jackson from closing the stream it was given. */
    private static final class NonClosing extends java.io.FilterOutputStream {
        NonClosing(java.io.OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
