package dev.vantage.board.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One section of a view: a heading, a note, and a table, a chart or a timeline; and a choice that asks for the view
 * again with another parameter (which step a timeline shows, say). The page sorts and filters every table, draws a
 * chart from its ECharts option with a tooltip that shows the values under the pointer, and draws a timeline with
 * zoom and pan.
 *
 * @param id the section's id, unique in the view: letters, digits and {@code -}
 * @param title its heading
 * @param note a sentence under the heading (units, how the figures are made), or null
 * @param columns the table's columns, empty for no table
 * @param rows the table's rows, each as long as {@code columns}: strings, numbers, booleans or nulls
 * @param totalRows how many rows the table has in all: more than {@code rows.size()} when only the first were sent
 * @param chart an Apache ECharts option (series, axes, legend), as maps, lists, strings and numbers; null for none
 * @param timeline slices on lanes, or null for none
 * @param choice a parameter the user may change, or null for none
 */
public record ViewSection(String id, String title, String note, List<Column> columns, List<List<Object>> rows,
        long totalRows, Map<String, Object> chart, Timeline timeline, Choice choice) {

    /** The most rows a section sends unless it says otherwise: a page never holds a whole trace. */
    public static final int MAX_ROWS = 2_000;

    /** Checks and copies. */
    public ViewSection {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(title, "title");
        if (!id.matches("[A-Za-z0-9-]+")) {
            throw new IllegalArgumentException("a section's id is letters, digits and '-': " + id);
        }
        columns = List.copyOf(columns);
        List<List<Object>> copied = new ArrayList<>(rows.size());
        for (List<Object> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("section " + id + ": a row of " + row.size() + " values for "
                        + columns.size() + " columns");
            }
            copied.add(Collections.unmodifiableList(new ArrayList<>(row)));
        }
        rows = Collections.unmodifiableList(copied);
        chart = chart == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(chart));
    }

    /** A table section; of more than {@link #MAX_ROWS} rows only the first are kept, and the note says so. */
    public static ViewSection table(String id, String title, String note, List<Column> columns,
            List<List<Object>> rows) {
        List<List<Object>> kept = rows.size() > MAX_ROWS ? rows.subList(0, MAX_ROWS) : rows;
        return new ViewSection(id, title, note, columns, kept, rows.size(), null, null, null);
    }

    /** A chart section. */
    public static ViewSection chart(String id, String title, String note, Map<String, Object> chart) {
        return new ViewSection(id, title, note, List.of(), List.of(), 0, chart, null, null);
    }

    /** A timeline section. */
    public static ViewSection timeline(String id, String title, String note, Timeline timeline) {
        return new ViewSection(id, title, note, List.of(), List.of(), 0, null, timeline, null);
    }

    /** A section that offers a choice only: the view is asked for again with the chosen value. */
    public static ViewSection choice(String id, String title, String note, Choice choice) {
        return new ViewSection(id, title, note, List.of(), List.of(), 0, null, null, choice);
    }

    /** A section of text only: its note. */
    public static ViewSection text(String id, String title, String note) {
        return new ViewSection(id, title, note, List.of(), List.of(), 0, null, null, null);
    }

    /** A table section of one of the run's named tables, every column a {@link Unit#NUMBER} or {@link Unit#TEXT}. */
    public static ViewSection of(BoardRun.Table table, String note) {
        List<Column> columns = new ArrayList<>();
        for (int i = 0; i < table.columns().size(); i++) {
            int at = i;
            boolean numbers = table.rows().stream().anyMatch(r -> r.get(at) instanceof Number);
            columns.add(new Column(table.columns().get(i), numbers ? Unit.NUMBER : Unit.TEXT));
        }
        return table(table.name().replaceAll("[^A-Za-z0-9-]", "-"), table.name(), note, columns, table.rows());
    }

    /**
     * Slices of time on lanes, drawn in the page with zoom and pan: the host threads' events and the devices' work of
     * a window, say.
     *
     * @param lanes the lanes' names, top to bottom
     * @param slices each {@code [lane index, start, end, name, kind]}: start and end in nanoseconds from the window's
     *     start, the kind a word the colour follows ({@code cpu_op}, {@code kernel}, {@code memcpy}, ...)
     * @param totalSlices how many slices the window has: more than {@code slices.size()} when only the longest were
     *     sent
     */
    public record Timeline(List<String> lanes, List<List<Object>> slices, long totalSlices) {

        /** Checks and copies. */
        public Timeline {
            lanes = List.copyOf(lanes);
            for (List<Object> s : slices) {
                if (s.size() != 5 || !(s.get(0) instanceof Integer lane) || lane < 0 || lane >= lanes.size()) {
                    throw new IllegalArgumentException("a slice is [lane, start, end, name, kind]: " + s);
                }
            }
            slices = Collections.unmodifiableList(new ArrayList<>(slices));
        }
    }

    /**
     * A parameter of the view the user may change: the page shows the options, and asks for the view again with
     * {@code parameter=value}, which {@link BoardView#render(BoardRun, Map)} receives.
     *
     * @param parameter the parameter's name: letters and digits
     * @param options each {@code [value, label]}
     * @param selected the value shown now
     */
    public record Choice(String parameter, List<List<String>> options, String selected) {

        /** Checks and copies. */
        public Choice {
            if (!parameter.matches("[A-Za-z0-9]+") || parameter.equals("token")) {
                throw new IllegalArgumentException("a choice's parameter is letters and digits: " + parameter);
            }
            options = options.stream().map(List::copyOf).toList();
        }
    }

    /**
     * A table's column.
     *
     * @param name its heading
     * @param unit how its values are shown
     */
    public record Column(String name, Unit unit) {

        /** Checks. */
        public Column {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(unit, "unit");
        }
    }

    /** How the page shows a column's values; the value sent stays exact, so sorting is by the value. */
    public enum Unit {
        /** Text, shown as text, never as markup. */
        TEXT,
        /** A number as it is. */
        NUMBER,
        /** Nanoseconds, shown in microseconds with three decimals (the unit of the TensorBoard plugin's views). */
        NANOS,
        /** Bytes, shown in MiB. */
        BYTES,
        /** A fraction, shown as a percentage. */
        FRACTION
    }
}
