package dev.vantage.board.internal.views;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.trace.engine.device.ClockAlignment;
import dev.vantage.trace.engine.summary.DeviceOverlap;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.Stragglers;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The TensorBoard plugin's Distributed view over a job's ranks: each rank's mean step time against the median, with
 * the stragglers ({@link Stragglers}: the rule {@code report} and {@code analyze} share), and each rank's device time
 * split into computation, overlapped and exposed communication and other; and one step of every rank on one
 * timeline, their clocks aligned ({@link MergedTimeline}).
 */
@Component(service = BoardView.class)
public class DistributedView extends ChoiceView {

    @Override
    public String id() {
        return "distributed";
    }

    @Override
    public String title() {
        return "Distributed";
    }

    @Override
    public int order() {
        return 45;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return run.summary().worldSize() > 1 || run.tags().containsKey("job_id");
    }

    @Override
    public List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException {
        List<TraceSummary> ranks = run.job();
        double[] means = new double[ranks.size()];
        for (int i = 0; i < means.length; i++) {
            means[i] = Stragglers.meanStepNanos(ranks.get(i).steps());
        }
        double median = Stragglers.median(means);
        List<String> labels = new ArrayList<>();
        Map<String, List<Double>> split = new LinkedHashMap<>();
        for (String k : List.of("Computation", "Overlapped communication", "Exposed communication", "Other")) {
            split.put(k, new ArrayList<>());
        }
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < ranks.size(); i++) {
            TraceSummary t = ranks.get(i);
            DeviceOverlap o = t.overlap();
            String label = "rank " + t.rank();
            labels.add(label);
            split.get("Computation").add(Charts.ms(o.computeNanos() - o.overlappedNanos()));
            split.get("Overlapped communication").add(Charts.ms(o.overlappedNanos()));
            split.get("Exposed communication").add(Charts.ms(o.exposedCommunicationNanos()));
            split.get("Other").add(Charts.ms(o.idleNanos()));
            rows.add(java.util.Arrays.asList(t.rank(), t.source(), (long) t.steps().size(), Math.round(means[i]),
                    median == 0 ? null : means[i] / median, Stragglers.isStraggler(means[i], median) ? "straggler" : "",
                    o.computeNanos() - o.overlappedNanos(), o.overlappedNanos(), o.exposedCommunicationNanos(),
                    o.idleNanos()));
        }
        Map<String, List<? extends Number>> series = new LinkedHashMap<>(split);
        Map<String, List<? extends Number>> stepSeries = new LinkedHashMap<>();
        List<Double> meanMs = new ArrayList<>();
        for (double m : means) {
            meanMs.add(Charts.ms(Math.round(m)));
        }
        stepSeries.put("Mean step time", meanMs);
        List<ViewSection> sections = new ArrayList<>(List.of(
                ViewSection.chart("rank-steps", "Step time by rank", "Each rank's mean step time, in milliseconds; a"
                        + " rank at least " + Stragglers.RATIO + " times the median is a straggler.",
                        Charts.stackedBars(labels, stepSeries, "ms")),
                ViewSection.chart("rank-overlap", "Computation and communication by rank", "Device time in"
                        + " milliseconds.", Charts.stackedBars(labels, series, "ms")),
                ViewSection.table("ranks", "Ranks", ranks.size() + " ranks; median of the mean step times "
                        + String.format(java.util.Locale.ROOT, "%.3f", median / 1e6) + " ms. Times in µs.", List.of(
                                new Column("Rank", Unit.NUMBER), new Column("Trace", Unit.TEXT),
                                new Column("Steps", Unit.NUMBER), new Column("Mean step", Unit.NANOS),
                                new Column("To median", Unit.NUMBER), new Column("Straggler", Unit.TEXT),
                                new Column("Computation", Unit.NANOS), new Column("Overlapped communication", Unit.NANOS),
                                new Column("Exposed communication", Unit.NANOS), new Column("Other", Unit.NANOS)),
                        rows)));
        sections.addAll(merged(run, ranks, parameters.get("step")));
        return sections;
    }

    /**
     * The merged timelines made, by job and step: every rank of a job shows the same one, and each is read from all
     * the job's traces, so a page of every rank (report's) or a second rank opened reads them once.
     */
    private final Map<MergeKey, MergedTimeline.Merged> timelines = java.util.Collections.synchronizedMap(
            new LinkedHashMap<>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<MergeKey, MergedTimeline.Merged> eldest) {
                    return size() > 8;
                }
            });

    /** A job, by its ranks' summaries (the same objects while they are held), and a step. */
    private record MergeKey(List<Same> ranks, long step) {
    }

    /** An object compared by identity. */
    private record Same(Object o) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Same s && s.o == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(o);
        }
    }

    /**
     * The merged timeline of one step: the job's first rank's slowest first (so every rank of the job shows the
     * same), any other this rank has from a choice.
     */
    private List<ViewSection> merged(BoardRun run, List<TraceSummary> ranks, String asked) throws IOException {
        List<StepStats> steps = run.summary().steps();
        StepStats first = Charts.step(ranks.get(0).steps(), null, Charts.SLOWEST);
        StepStats chosen = Charts.step(steps, asked != null ? asked : first == null ? null
                : String.valueOf(first.step()), Charts.SLOWEST);
        long step = chosen == null ? Long.MIN_VALUE : chosen.step();
        List<ViewSection> out = new ArrayList<>();
        if (chosen != null) {
            out.add(ViewSection.choice("merged-step", "Step of every rank", "Rank " + ranks.get(0).rank() + "'s"
                    + " slowest step is shown first.", Charts.steps("step", steps, chosen)));
        }
        MergeKey key = new MergeKey(ranks.stream().map(Same::new).toList(), step);
        MergedTimeline.Merged merged = timelines.get(key);
        if (merged == null) {
            int[] next = {0};
            List<MergedTimeline.Rank> parts = run.readJob(trace -> MergedTimeline.of(trace,
                    ranks.get(Math.min(next[0]++, ranks.size() - 1)).rank(), step));
            merged = MergedTimeline.merge(parts, TimelineView.MAX_SLICES);
            timelines.put(key, merged);
        }
        List<List<Object>> shiftRows = new ArrayList<>();
        for (var s : merged.shifts()) {
            shiftRows.add(java.util.Arrays.asList(s.rank(), s.nanos(), (long) s.matched(), (long) s.kernels(),
                    s.spreadNanos()));
        }
        ViewSection.Timeline t = merged.timeline();
        out.add(ViewSection.timeline("merged-timeline", (chosen == null ? "The whole trace" : "ProfilerStep#" + step)
                + " on every rank", "Each rank's step span, its threads' outermost events and its device streams,"
                + " every rank's times moved onto rank " + merged.ranks().get(0) + "'s clock by the ends of their"
                + " collectives (as vantage merge does). Scroll to zoom, drag to pan." + (t.totalSlices()
                > t.slices().size() ? " The longest " + t.slices().size() + " of " + t.totalSlices() + " slices." : ""),
                t));
        out.add(ViewSection.table("clock-shifts", "Clock shifts", "What was added to each rank's times: the median"
                + " difference of its collectives' ends from the first rank's; a rank with fewer than "
                + ClockAlignment.MIN_MATCHES + " matching collectives is not moved.", List.of(
                        new Column("Rank", Unit.NUMBER), new Column("Shift", Unit.NANOS),
                        new Column("Collectives matched", Unit.NUMBER), new Column("Collectives", Unit.NUMBER),
                        new Column("Largest distance after the shift", Unit.NANOS)), shiftRows));
        return out;
    }
}
