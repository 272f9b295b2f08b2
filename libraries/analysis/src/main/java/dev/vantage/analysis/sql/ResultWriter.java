package dev.vantage.analysis.sql;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import dev.vantage.analysis.CsvRows;

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

    /** What ends a line: the platform's separator, as {@code PrintStream.println} ends them. */
    private static final String NEWLINE = System.lineSeparator();

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    private ResultWriter() {
    }

    /**
     * Writes results. Lines end with the platform's line separator (Jackson's pretty printer ends the JSON's so too).
     *
     * @param out where to write; flushed, not closed
     * @throws IllegalArgumentException for an unknown format
     * @throws IOException if writing fails
     */
    public static void write(String format, List<ResultTable> results, Writer out) throws IOException {
        switch (format) {
            case "table" -> table(results, out);
            case "csv" -> csv(results, out);
            case "json" -> json(results, out);
            default -> throw new IllegalArgumentException("unknown format '" + format + "'");
        }
        out.flush();
    }

    /** Writes the tables as one JSON object of arrays of row objects, row by row (a long table is never held whole). */
    private static void json(List<ResultTable> results, Writer out) throws IOException {
        try (JsonGenerator g = JSON.writer().createGenerator(out)) {
            g.writeStartObject();
            for (ResultTable t : results) {
                g.writeArrayFieldStart(t.name());
                for (List<Object> row : t.rows()) {
                    Map<String, Object> o = new LinkedHashMap<>();
                    for (int i = 0; i < t.columns().size(); i++) {
                        o.put(t.columns().get(i), row.get(i));
                    }
                    g.writeObject(o);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
        out.write(NEWLINE);
    }

    private static void csv(List<ResultTable> results, Writer out) throws IOException {
        boolean first = true;
        for (ResultTable t : results) {
            if (!first) {
                out.write(NEWLINE);
            }
            first = false;
            out.write("# " + t.name() + NEWLINE);
            try (CsvRows csv = new CsvRows(out, NEWLINE)) {
                csv.row(t.columns());
                for (List<Object> row : t.rows()) {
                    List<String> cells = new ArrayList<>();
                    for (Object v : row) {
                        // doubles in plain decimal notation (6.169571E7 is valid CSV but not what a spreadsheet
                        // shows); null as an empty field
                        cells.add(v instanceof Double d ? java.math.BigDecimal.valueOf(d).toPlainString()
                                : v == null ? "" : String.valueOf(v));
                    }
                    csv.row(cells);
                }
            }
        }
    }

    private static void table(List<ResultTable> results, Writer out) throws IOException {
        List<String> summary = Summary.lines(results);
        for (String line : summary) {
            out.write(line + NEWLINE);
        }
        boolean first = summary.isEmpty();
        for (ResultTable t : results) {
            // a blank line between blocks, none before the first
            if (!first) {
                out.write(NEWLINE);
            }
            first = false;
            out.write("== " + t.name() + " (" + t.rows().size() + (t.rows().size() == 1 ? " row)" : " rows)")
                    + NEWLINE);
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
                out.write(b.toString().stripTrailing() + NEWLINE);
            }
            if (t.rows().size() > TABLE_ROWS) {
                out.write("... " + (t.rows().size() - TABLE_ROWS) + " more rows (--format csv or json prints all)"
                        + NEWLINE);
            }
        }
    }

    /** The longest text a table cell shows. */
    static final int TABLE_TEXT = 100;

    /**
     * A value for the table: nanoseconds as milliseconds, fractions rounded, null as {@code -}, text cut to
     * {@link #TABLE_TEXT} characters.
     */
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
        String text = String.valueOf(value);
        // a kernel's name can run to thousands of characters: a terminal gets its start, csv and json all of it
        return text.length() <= TABLE_TEXT ? text : text.substring(0, TABLE_TEXT - 1) + "…";
    }
}
