package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.HdrHistogram.Histogram;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.trace.engine.summary.KernelStats;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Steps of one trace as traces of their own, for {@link dev.vantage.trace.engine.summary.Comparison} to compare two
 * steps as {@code compare} compares two runs: each step's host rows (operators, annotations, runtime calls) and device
 * work, summed from the engine's cursor, whose events carry the step they belong to by the trace's step rule (host
 * events by their start, device work by its launch). A host row's self and total times and its device times are the
 * engine's per event; p99 is of the step's own events.
 */
public final class StepSummaries {

    private StepSummaries() {
    }

    /**
     * The summaries of the steps numbered {@code numbers} ({@code ProfilerStep#N}), in that order; a number the trace
     * has no step of gives a summary with no rows.
     *
     * @param whole the trace's own summary, whose step figures each step's summary keeps
     */
    public static List<TraceSummary> of(AnalysedTrace trace, TraceSummary whole, long... numbers) {
        List<TraceStep> steps = trace.steps();
        Map<Integer, Integer> wanted = new LinkedHashMap<>();
        for (int n = 0; n < numbers.length; n++) {
            for (int i = 0; i < steps.size(); i++) {
                if (steps.get(i).number() == numbers[n]) {
                    wanted.putIfAbsent(i, n);
                }
            }
        }
        List<Map<String, Sums>> ops = new ArrayList<>();
        List<Map<String, Sums>> kernels = new ArrayList<>();
        for (int n = 0; n < numbers.length; n++) {
            ops.add(new LinkedHashMap<>());
            kernels.add(new LinkedHashMap<>());
        }
        EventCursor c = trace.events();
        while (c.next()) {
            Integer n = wanted.get(c.stepIndex());
            EventKind kind = c.kind();
            if (n == null || kind == EventKind.GC || Analysis.isMemory(kind.id())) {
                continue;
            }
            if (kind.isDeviceWork()) {
                // the kernel view's types, as the trace's summary types its kernels
                String type = kind != EventKind.GPU_MEMSET && c.isCommunication() ? "communication"
                        : kind == EventKind.GPU_MEMCPY ? "memcpy"
                        : kind == EventKind.GPU_MEMSET ? "memset" : "kernel";
                kernels.get(n).computeIfAbsent(c.name(), k -> new Sums(k, type)).add(c.durationNanos(), 0, 0, 0);
            } else {
                ops.get(n).computeIfAbsent(c.name(), k -> new Sums(k, kind.category())).add(c.durationNanos(),
                        c.selfDurationNanos(), c.deviceSelfNanos(), c.deviceTotalNanos());
            }
        }
        List<TraceSummary> out = new ArrayList<>();
        for (int n = 0; n < numbers.length; n++) {
            long number = numbers[n];
            List<StepStats> stats = whole.steps().stream().filter(s -> s.step() == number).toList();
            List<OpStats> o = ops.get(n).values().stream().map(Sums::op)
                    .sorted(Comparator.comparingLong(OpStats::totalNanos).reversed().thenComparing(OpStats::name))
                    .toList();
            List<KernelStats> k = kernels.get(n).values().stream().map(Sums::kernel)
                    .sorted(Comparator.comparingLong(KernelStats::totalNanos).reversed()
                            .thenComparing(KernelStats::name)).toList();
            out.add(new TraceSummary(whole.source() + " ProfilerStep#" + number, whole.rank(), whole.worldSize(),
                    0, o, List.of(), k, List.of(), stats, List.of()));
        }
        return out;
    }

    /** One name's events of a step, summed, with their spread. */
    private static final class Sums {
        final String name;
        final String kind;
        long count;
        long total;
        long self;
        long deviceSelf;
        long deviceTotal;
        long min = Long.MAX_VALUE;
        long max;
        final Histogram histogram = new Histogram(3);

        Sums(String name, String kind) {
            this.name = name;
            this.kind = kind;
        }

        void add(long duration, long selfNanos, long deviceSelfNanos, long deviceTotalNanos) {
            count++;
            total += duration;
            self += selfNanos;
            deviceSelf += deviceSelfNanos;
            deviceTotal += deviceTotalNanos;
            min = Math.min(min, duration);
            max = Math.max(max, duration);
            histogram.recordValue(Math.max(0, duration));
        }

        long p99() {
            return Math.min(max, histogram.getValueAtPercentile(99));
        }

        OpStats op() {
            return new OpStats(name, kind, null, count, self, total, deviceSelf, deviceTotal, total / count, p99());
        }

        KernelStats kernel() {
            return new KernelStats(name, kind, null, count, total, min, max, total / count, p99());
        }
    }
}
