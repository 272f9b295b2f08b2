package dev.vantage.analysis;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.vantage.analysis.compare.CompareFormat;
import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * {@code vantage compare RUN_A RUN_B [--format table|csv|json] [-o FILE] [--top N] [--dir DIR]}: per-operator,
 * per-kernel, per-step and peak memory deltas of two runs (run ids or unique prefixes from the profile
 * directory's {@code runs.jsonl}, or trace files). A run with several traces (several schedule cycles) is
 * compared by its first.
 */
final class CompareCommand {

    private CompareCommand() {
    }

    static int run(Options.Compare options, PrintStream out, PrintStream err) throws Exception {
        Path registry = options.dir();
        TraceInputs.Input a = TraceInputs.resolve(options.runs().get(0), registry, false);
        TraceInputs.Input b = TraceInputs.resolve(options.runs().get(1), registry, false);
        Path file = options.output();
        int rows = options.top();
        CompareFormat format = CompareFormat.of(options.format());

        TraceSummary sa = TraceInputs.read(a.traces().get(0), options.strict(), err);
        TraceSummary sb = TraceInputs.read(b.traces().get(0), options.strict(), err);
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
}
