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
                case "-o", "--output" -> output = CompareCommand.value(args, ++i, a);
                case "--dir" -> dir = CompareCommand.value(args, ++i, a);
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
        TraceInputs.Input input = TraceInputs.resolve(inputs.get(0), TraceInputs.profileDir(dir), true);
        Path file = TraceInputs.output(output);
        if (!file.getFileName().toString().matches(".*\\.html?")) {
            throw new IllegalArgumentException("-o '" + output + "' should end in .html");
        }

        List<TraceSummary> summaries = new ArrayList<>();
        for (Path trace : input.traces()) {
            summaries.add(TraceReader.read(trace));
        }
        Report report = Report.of(input.label(), summaries);
        TraceInputs.writeAtomically(file, w -> ReportPage.write(report, w));
        out.println("report written: " + file + " (" + summaries.size() + (summaries.size() == 1 ? " trace" : " traces")
                + ")");
        return 0;
    }
}
