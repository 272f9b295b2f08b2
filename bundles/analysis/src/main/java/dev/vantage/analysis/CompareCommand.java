package dev.vantage.analysis;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.analysis.compare.CompareFormat;
import dev.vantage.analysis.compare.Comparison;
import dev.vantage.analysis.trace.TraceReader;
import dev.vantage.analysis.trace.TraceSummary;

/**
 * {@code vantage compare RUN_A RUN_B [--format table|csv|json] [-o FILE] [--top N] [--dir DIR]}: per-operator,
 * per-kernel, per-step and peak memory deltas of two runs (run ids or unique prefixes from the profile
 * directory's {@code runs.jsonl}, or trace files). A run with several traces (several schedule cycles) is
 * compared by its first.
 */
final class CompareCommand {

    static final String USAGE = """
            usage: vantage compare RUN_A RUN_B [--format table|csv|json] [-o FILE] [--top N] [--dir DIR]

            Compares two profiled runs: per-operator and per-kernel deltas (count, self and total time, mean,
            p99; sorted by absolute change; new and vanished ones flagged), per-step time deltas and peak
            memory per device.

              RUN_A, RUN_B       a run id, or a prefix only one run has, from DIR/runs.jsonl; or a trace file
                                 (.trace.json or .trace.json.gz)
              --format F         table (default), csv or json (schema: compare.schema.json)
              -o FILE            write to FILE instead of standard output
              --top N            at most N operators and N kernels, the largest changes (default: 20 for
                                 table, all for csv and json)
              --dir DIR          the profile directory with runs.jsonl (default $VANTAGE_PROFILER_DIR, else
                                 ./vantage_profiles)
            """;

    private CompareCommand() {
    }

    static int run(List<String> args, PrintStream out) throws Exception {
        List<String> runs = new ArrayList<>();
        CompareFormat format = CompareFormat.TABLE;
        String output = null;
        String dir = null;
        int top = -2;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            switch (a) {
                case "--help", "-h" -> {
                    out.print(USAGE);
                    return 0;
                }
                case "--format" -> format = CompareFormat.of(TraceInputs.optionValue("", args, ++i, a));
                case "-o", "--output" -> output = TraceInputs.optionValue("", args, ++i, a);
                case "--dir" -> dir = TraceInputs.optionValue("", args, ++i, a);
                case "--top" -> top = positive(TraceInputs.optionValue("", args, ++i, a), a);
                default -> {
                    if (a.startsWith("-") && a.length() > 1) {
                        throw new IllegalArgumentException("compare: unknown option '" + a + "'");
                    }
                    runs.add(a);
                }
            }
        }
        if (runs.size() != 2) {
            throw new IllegalArgumentException("compare needs two runs or traces, got " + runs.size() + " "
                    + runs + "; see vantage compare --help");
        }
        Path registry = TraceInputs.profileDir("compare", dir);
        TraceInputs.Input a = TraceInputs.resolve(runs.get(0), registry, false);
        TraceInputs.Input b = TraceInputs.resolve(runs.get(1), registry, false);
        Path file = output == null ? null : TraceInputs.output(output);
        int rows = top != -2 ? top : format == CompareFormat.TABLE ? 20 : -1;

        TraceSummary sa = TraceReader.read(a.traces().get(0));
        TraceSummary sb = TraceReader.read(b.traces().get(0));
        Comparison comparison = Comparison.of(a.label(), sa, b.label(), sb);
        CompareFormat f = format;
        if (file == null) {
            Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            f.write(comparison, rows, w);
        } else {
            TraceInputs.writeAtomically(file, w -> f.write(comparison, rows, w));
            out.println("comparison written: " + file);
        }
        return 0;
    }

    private static int positive(String value, String option) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException(option + " '" + value + "' is not a positive whole number");
    }
}
