package dev.vantage.analysis;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.analysis.report.Report;
import dev.vantage.analysis.report.ReportPage;
import dev.vantage.analysis.report.ReportRun;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.OperatorStacks;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * {@code vantage report TRACE|RUN|DIR [-o FILE] [--dir DIR]}: one self-contained HTML page with the board's views of
 * each trace ({@link ReportPage}: Overview, Operators, Kernels, Timeline, Memory, Device analyses and, for a
 * directory with one trace per rank, Distributed and Communication; a run of several cycles by its first), fed by the
 * summaries and the device analyses of {@code analyze} ({@link TraceAnalyses}) computed here in one read per trace.
 */
final class ReportCommand {

    private ReportCommand() {
    }

    static int run(Options.Report options, PrintStream out, PrintStream err) throws Exception {
        TraceInputs.Input input = TraceInputs.resolve(options.input(), options.dir(), true);
        Path file = options.output();

        List<TraceSummary> summaries = new ArrayList<>();
        List<Path> traces = input.traces();
        if (input.cycles() && traces.size() > 1) {
            // a run's cycles are not the ranks of a job: the report is of the first, the one compare reads
            err.println("vantage: run " + input.label() + " recorded " + traces.size() + " schedule cycles, a trace"
                    + " each; the report is of the first, " + traces.get(0) + " (give another cycle's file to report"
                    + " that one)");
            traces = traces.subList(0, 1);
        }
        // one read per trace: its views, and the device analyses while it is open (their summaries: the per-event
        // series are left to analyze)
        TraceAnalyses.Job analyses = TraceAnalyses.Job.withDefaults();
        // the operators by call stack, for the page's Operators view (traces recorded with with_stack)
        List<List<Object>> stacks = new ArrayList<>();
        for (int i = 0; i < traces.size(); i++) {
            Path p = traces.get(i);
            try (AnalysedTrace trace = TraceInputs.open(p, options.strict(), err)) {
                TraceSummary s = trace.summary(p.getFileName().toString());
                if (s.rank() < 0 && traces.size() > 1) {
                    // a PyTorch job's trace without distributedInfo: its rank as convert gives it (the number after
                    // rank or worker in the file name, else its position), so the two verbs see the same ranks
                    s = s.withRank(ConvertCommand.rankInName(p, i), traces.size());
                }
                summaries.add(s);
                ranksOfOneJob(input.label(), summaries);
                analyses.add(Math.max(0, s.rank()), trace, s);
                stacks.addAll(OperatorStacks.rows(Math.max(0, s.rank()), trace));
            }
        }
        List<ResultTable> tables = analyses.tables();
        Report report = Report.of(input.label(), summaries, tables);
        // the board's views of each trace: a view that needs more than the summary reads the trace again as here,
        // its repairs already told once above
        PrintStream told = new PrintStream(java.io.OutputStream.nullOutputStream());
        List<ResultTable> shown = new ArrayList<>(tables);
        if (!stacks.isEmpty()) {
            shown.add(new ResultTable("operators_by_stack", OperatorStacks.COLUMNS, stacks));
        }
        List<ReportRun> runs = ReportRun.of(traces, summaries, shown, p -> TraceInputs.open(p, options.strict(),
                told));
        TraceInputs.writeAtomically(file, w -> ReportPage.write(report, runs, w));
        out.println("report written: " + file + " (" + summaries.size() + (summaries.size() == 1 ? " trace" : " traces")
                + ")");
        return 0;
    }

    /**
     * Refuses several traces that are not the ranks of one job: the per-rank view would line unrelated runs up as
     * ranks. Two traces of the same rank are several runs in one directory, or one run's cycles.
     */
    static void ranksOfOneJob(String label, List<TraceSummary> summaries) {
        if (summaries.size() < 2) {
            return;
        }
        java.util.Map<Integer, List<String>> byRank = new java.util.TreeMap<>();
        for (TraceSummary s : summaries) {
            byRank.computeIfAbsent(s.rank(), r -> new ArrayList<>()).add(Path.of(s.source()).getFileName().toString());
        }
        for (java.util.Map.Entry<Integer, List<String>> e : byRank.entrySet()) {
            if (e.getValue().size() > 1) {
                throw new IllegalArgumentException("'" + label + "' holds " + e.getValue().size() + " traces of rank "
                        + e.getKey() + " (" + String.join(", ", e.getValue()) + "): several runs, or the schedule"
                        + " cycles of one; give one trace, a run id, or a directory holding the ranks of one job");
            }
        }
    }
}
