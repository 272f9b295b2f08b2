package dev.vantage.analysis.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.board.api.BoardRun;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * One trace of a report as the board's views see a run: its summary as {@code report} made it (the rank taken from
 * the file name where the trace does not say), its rank's rows of the device analyses, and the report's other
 * traces as the ranks of its job. Reading the trace again goes through the report's own opener, with the same
 * limits and repairs as the first read.
 */
public final class ReportRun implements BoardRun {

    /** Opens a report's trace as the verb does. */
    public interface Opener {
        AnalysedTrace open(Path file) throws IOException;
    }

    private final String id;
    private final Path file;
    private final TraceSummary summary;
    private final List<Table> analyses;
    private final Opener opener;
    private List<ReportRun> job = List.of(this);

    private ReportRun(String id, Path file, TraceSummary summary, List<Table> analyses, Opener opener) {
        this.id = id;
        this.file = file;
        this.summary = summary;
        this.analyses = analyses;
        this.opener = opener;
    }

    /**
     * The runs of a report's traces, each the others' job when there are several (the report refuses traces that are
     * not the ranks of one job).
     *
     * @param files the traces, in the order of {@code summaries}
     * @param summaries their summaries
     * @param analyses the device analyses' tables of all of them, rows by their {@code rank} column
     */
    public static List<ReportRun> of(List<Path> files, List<TraceSummary> summaries, List<ResultTable> analyses,
            Opener opener) {
        List<ReportRun> runs = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            TraceSummary s = summaries.get(i);
            runs.add(new ReportRun("trace-" + i, files.get(i).toAbsolutePath(), s, ofRank(analyses,
                    Math.max(0, s.rank())), opener));
        }
        List<ReportRun> byRank = new ArrayList<>(runs);
        byRank.sort(java.util.Comparator.comparingInt((ReportRun r) -> r.summary.rank())
                .thenComparing(r -> r.summary.source()));
        if (runs.size() > 1) {
            runs.forEach(r -> r.job = List.copyOf(byRank));
        }
        return byRank;
    }

    private static List<Table> ofRank(List<ResultTable> tables, int rank) {
        List<Table> out = new ArrayList<>();
        for (ResultTable t : tables) {
            int at = t.columns().indexOf("rank");
            List<List<Object>> rows = new ArrayList<>();
            for (List<Object> row : t.rows()) {
                if (at < 0 || row.get(at) instanceof Number n && n.intValue() == rank) {
                    rows.add(row);
                }
            }
            out.add(new Table(t.name(), t.columns(), rows));
        }
        return List.copyOf(out);
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String name() {
        return summary.source();
    }

    @Override
    public Path file() {
        return file;
    }

    @Override
    public Map<String, String> tags() {
        return summary.rank() >= 0 && job.size() > 1 ? Map.of("rank", String.valueOf(summary.rank())) : Map.of();
    }

    @Override
    public TraceSummary summary() {
        return summary;
    }

    @Override
    public List<Table> analyses() {
        return analyses;
    }

    @Override
    public List<TraceSummary> job() {
        return job.stream().map(ReportRun::summary).toList();
    }

    @Override
    public <T> List<T> readJob(Function<AnalysedTrace, T> function) throws IOException {
        List<T> out = new ArrayList<>();
        for (ReportRun r : job) {
            out.add(r.read(function));
        }
        return out;
    }

    @Override
    public <T> T read(Function<AnalysedTrace, T> function) throws IOException {
        try (AnalysedTrace trace = opener.open(file)) {
            return function.apply(trace);
        }
    }
}
