package dev.vantage.analysis.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.ToLongFunction;

import dev.vantage.trace.engine.summary.Stragglers;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * What a report shows: one {@link TraceSummary} per trace (per rank for a directory of a distributed run), and
 * for several traces the per-rank step times with the straggler. It is embedded in the page as JSON (element
 * {@code vantage-data}), for scripts and tests; the page draws the board's views of the same traces.
 *
 * @param schemaVersion 1
 * @param title what the report is of: the file, run id or directory given
 * @param traces the traces, by rank then file name
 * @param ranks one entry per trace, in the same order, when there are several; else empty
 * @param slowestRank the index in {@code ranks} of the rank with the longest mean step, -1 when there is no
 *     {@code ranks}
 * @param medianStepNanos the median of the ranks' mean step times ({@link Stragglers#median}); 0 when there is no
 *     {@code ranks}
 * @param analyses the trace engine's device analyses of the traces, one table each, as {@code vantage analyze}
 *     prints them (HTA's names and columns; its summaries, not the per-launch series)
 */
public record Report(int schemaVersion, String title, List<TraceSummary> traces, List<RankStats> ranks,
        int slowestRank, double medianStepNanos, List<ResultTable> analyses) {

    /** Copies the lists. */
    public Report {
        traces = List.copyOf(traces);
        ranks = List.copyOf(ranks);
        analyses = List.copyOf(analyses);
    }

    /**
     * Builds the report of traces.
     *
     * @param title what the report is of
     * @param summaries the traces' summaries, at least one
     * @throws IllegalArgumentException if there is none
     */
    public static Report of(String title, List<TraceSummary> summaries) {
        return of(title, summaries, List.of());
    }

    /**
     * Builds the report of traces, with their device analyses.
     *
     * @param title what the report is of
     * @param summaries the traces' summaries, at least one
     * @param analyses the device analyses' tables of the same traces
     * @throws IllegalArgumentException if there is no summary
     */
    public static Report of(String title, List<TraceSummary> summaries, List<ResultTable> analyses) {
        Objects.requireNonNull(title, "title");
        if (summaries.isEmpty()) {
            throw new IllegalArgumentException("a report needs at least one trace");
        }
        List<TraceSummary> traces = new ArrayList<>(summaries);
        traces.sort(Comparator.comparingInt(TraceSummary::rank).thenComparing(TraceSummary::source));
        if (traces.size() == 1) {
            return new Report(1, title, traces, List.of(), -1, 0, analyses);
        }
        double[] means = traces.stream().mapToDouble(t -> Stragglers.meanStepNanos(t.steps())).toArray();
        double median = Stragglers.median(means);
        int slowest = 0;
        for (int i = 1; i < means.length; i++) {
            if (means[i] > means[slowest]) {
                slowest = i;
            }
        }
        List<RankStats> ranks = new ArrayList<>();
        for (int i = 0; i < traces.size(); i++) {
            TraceSummary t = traces.get(i);
            List<StepStats> steps = t.steps();
            double ratio = median == 0 ? 0 : (double) means[i] / median;
            long kernel = mean(steps, StepStats::kernelNanos);
            long communication = mean(steps, StepStats::communicationNanos);
            ranks.add(new RankStats(t.rank(), t.source(), steps.size(), means[i],
                    steps.stream().mapToLong(StepStats::durationNanos).max().orElse(0), kernel, communication,
                    Math.max(0, Math.round(means[i]) - kernel - communication), ratio,
                    Stragglers.isStraggler(means[i], median)));
        }
        return new Report(1, title, traces, ranks, slowest, median, analyses);
    }

    private static long mean(List<StepStats> steps, ToLongFunction<StepStats> f) {
        return steps.isEmpty() ? 0 : steps.stream().mapToLong(f).sum() / steps.size();
    }
}
