package dev.vantage.analysis;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.analysis.report.Report;
import dev.vantage.analysis.report.ReportPage;
import dev.vantage.analysis.trace.TraceReader;
import dev.vantage.analysis.trace.TraceSummary;

/**
 * {@code vantage report TRACE|RUN|DIR [-o FILE] [--dir DIR]}: one self-contained HTML page with the views of the
 * TensorBoard profiler plugin (overview, operators, kernels, memory) and, for several traces (a directory with one
 * trace per rank, or a run with several), the per-rank step time and straggler view.
 */
final class ReportCommand {

    static final String USAGE = """
            usage: vantage report TRACE|RUN|DIR [-o FILE] [--dir DIR]

            Writes one self-contained HTML page (no network needed to view it): step time breakdown per step,
            operator table (by name or input shape), kernel table (by name or launching operator), memory
            curve per device, and for several traces (one per rank) the per-rank step time and stragglers.

              TRACE              a trace file (.trace.json or .trace.json.gz)
              RUN                a run id, or a prefix only one run has, from DIR/runs.jsonl
              DIR                a directory of trace files, such as the ranks of one distributed run
              -o FILE            the page to write (default report.html)
              --dir DIR          the profile directory with runs.jsonl (default $VANTAGE_PROFILER_DIR, else
                                 ./vantage_profiles)
            """;

    private ReportCommand() {
    }

    static int run(List<String> args, PrintStream out) throws Exception {
        List<String> inputs = new ArrayList<>();
        String output = "report.html";
        String dir = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return 0;
                }
                case "-o", "--output" -> output = TraceInputs.optionValue("", args, ++i, a);
                case "--dir" -> dir = TraceInputs.optionValue("", args, ++i, a);
                default -> {
                    if (a.startsWith("-") && a.length() > 1) {
                        throw new IllegalArgumentException("report: unknown option '" + a + "'");
                    }
                    inputs.add(a);
                }
            }
        }
        if (inputs.size() != 1) {
            throw new IllegalArgumentException("report needs one trace, run or directory, got " + inputs.size()
                    + " " + inputs + "; see vantage report --help");
        }
        TraceInputs.Input input = TraceInputs.resolve(inputs.get(0), TraceInputs.profileDir("report", dir), true);
        Path file = TraceInputs.output(output);
        if (!file.getFileName().toString().matches(".*\\.html?")) {
            throw new IllegalArgumentException("-o '" + output + "' should end in .html");
        }

        List<TraceSummary> summaries = new ArrayList<>();
        for (Path trace : input.traces()) {
            summaries.add(TraceReader.read(trace));
        }
        ranksOfOneJob(input.label(), summaries);
        Report report = Report.of(input.label(), summaries);
        TraceInputs.writeAtomically(file, w -> ReportPage.write(report, w));
        out.println("report written: " + file + " (" + summaries.size() + (summaries.size() == 1 ? " trace" : " traces")
                + ")");
        return 0;
    }

    /**
     * Refuses several traces that are not the ranks of one job: the per-rank view would line unrelated runs up as
     * ranks. Two traces of the same rank mean the directory holds more than one run.
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
                throw new IllegalArgumentException("'" + label + "' holds traces of more than one run: rank "
                        + e.getKey() + " appears " + e.getValue().size() + " times (" + String.join(", ", e.getValue())
                        + "); give one trace, a run id, or a directory holding the ranks of one job");
            }
        }
    }
}
