package dev.vantage.analysis.report;

import java.io.IOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;

import dev.vantage.board.page.BoardPage;

/**
 * Writes a report as one self-contained HTML page: the board's page ({@link BoardPage}) with the report's traces as
 * its runs, so each trace shows the views {@code vantage board} shows (Overview, Operators, Kernels, Timeline, Memory,
 * Distributed, Communication, Device analyses), computed by the same code and drawn by the same script, with the
 * chart library inline and no network. The {@link Report} itself is embedded too, as JSON in the element
 * {@value #DATA_ELEMENT}, for scripts and tests that read the figures.
 */
public final class ReportPage {

    /** The id of the element holding the report's data as JSON. */
    public static final String DATA_ELEMENT = "vantage-data";

    private ReportPage() {
    }

    /**
     * Writes the page.
     *
     * @param report the report's figures, embedded as JSON
     * @param runs the report's traces as the board's views read them, in the list's order
     * @param out where to write; not closed
     */
    public static void write(Report report, List<ReportRun> runs, Writer out) throws IOException {
        BoardPage.write(report.title(), runs, Map.of(DATA_ELEMENT, report), out);
    }
}
