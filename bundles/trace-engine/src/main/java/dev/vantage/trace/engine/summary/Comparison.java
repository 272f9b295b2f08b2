package dev.vantage.trace.engine.summary;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;


/**
 * Two traces compared: per-operator and per-kernel deltas sorted by the absolute change (operators by self time,
 * kernels by total time; ties by name), with operators and kernels only one side has flagged {@code new} or
 * {@code vanished}; per-step deltas, steps paired by position (the first recorded step of A with the first of B,
 * whatever their numbers), and their mean; peak memory per device.
 *
 * @param a what A is: its label (run id or file) and trace
 * @param b what B is
 * @param ops operator deltas, grouped by name
 * @param kernels kernel deltas, grouped by name
 * @param steps step deltas, then one named {@code mean} over the paired steps (when there are any)
 * @param memory peak memory deltas, by device
 */
public record Comparison(Side a, Side b, List<Delta> ops, List<Delta> kernels, List<Delta> steps,
        List<Delta> memory) {

    /**
     * One of the compared runs.
     *
     * @param label how the user named it: a run id, or the trace's path
     * @param source the trace file's name
     * @param rank its rank, -1 when it has none
     * @param stepCount how many steps it recorded
     */
    public record Side(String label, String source, int rank, int stepCount) {
    }

    /** Copies the lists. */
    public Comparison {
        ops = List.copyOf(ops);
        kernels = List.copyOf(kernels);
        steps = List.copyOf(steps);
        memory = List.copyOf(memory);
    }

    /**
     * Compares two traces.
     *
     * @param labelA how the user named A
     * @param a A's summary
     * @param labelB how the user named B
     * @param b B's summary
     */
    public static Comparison of(String labelA, TraceSummary a, String labelB, TraceSummary b) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        Map<String, ToLongFunction<OpStats>> opMetrics = new LinkedHashMap<>();
        opMetrics.put("count", OpStats::count);
        opMetrics.put("selfNanos", OpStats::selfNanos);
        opMetrics.put("totalNanos", OpStats::totalNanos);
        opMetrics.put("meanNanos", OpStats::meanNanos);
        opMetrics.put("p99Nanos", OpStats::p99Nanos);
        opMetrics.put("deviceSelfNanos", OpStats::deviceSelfNanos);
        opMetrics.put("deviceTotalNanos", OpStats::deviceTotalNanos);
        Map<String, ToLongFunction<KernelStats>> kernelMetrics = new LinkedHashMap<>();
        kernelMetrics.put("count", KernelStats::count);
        kernelMetrics.put("totalNanos", KernelStats::totalNanos);
        kernelMetrics.put("meanNanos", KernelStats::meanNanos);
        kernelMetrics.put("p99Nanos", KernelStats::p99Nanos);
        kernelMetrics.put("minNanos", KernelStats::minNanos);
        kernelMetrics.put("maxNanos", KernelStats::maxNanos);
        Map<String, ToLongFunction<MemoryCurve>> memoryMetrics = new LinkedHashMap<>();
        memoryMetrics.put("peakAllocatedBytes", MemoryCurve::peakAllocatedBytes);
        memoryMetrics.put("peakReservedBytes", MemoryCurve::peakReservedBytes);
        memoryMetrics.put("events", MemoryCurve::events);

        // the host rows of the key averages (operators, annotations, steps, runtime calls); device work is compared
        // in the kernel section
        List<Delta> ops = join(hostRows(a), hostRows(b), OpStats::name, o -> "", opMetrics);
        sortByChange(ops, "selfNanos");
        List<Delta> kernels = join(a.kernels(), b.kernels(), KernelStats::name, KernelStats::type, kernelMetrics);
        sortByChange(kernels, "totalNanos");
        List<Delta> memory = join(a.memory(), b.memory(), MemoryCurve::device, m -> "", memoryMetrics);
        memory.sort(Comparator.comparing(Delta::name));
        return new Comparison(new Side(labelA, a.source(), a.rank(), a.steps().size()),
                new Side(labelB, b.source(), b.rank(), b.steps().size()), ops, kernels, steps(a.steps(), b.steps()),
                memory);
    }

    private static List<OpStats> hostRows(TraceSummary s) {
        return s.ops().stream().filter(o -> !o.isDeviceWork()).toList();
    }

    private static <T> List<Delta> join(List<T> a, List<T> b, Function<T, String> key, Function<T, String> detail,
            Map<String, ToLongFunction<T>> metrics) {
        Map<String, T> inB = new LinkedHashMap<>();
        b.forEach(x -> inB.putIfAbsent(key.apply(x), x));
        Map<String, T> inA = new LinkedHashMap<>();
        a.forEach(x -> inA.putIfAbsent(key.apply(x), x));
        List<Delta> rows = new ArrayList<>();
        for (Map.Entry<String, T> e : inA.entrySet()) {
            T other = inB.get(e.getKey());
            rows.add(delta(e.getKey(), detail.apply(e.getValue()), e.getValue(), other, metrics));
        }
        for (Map.Entry<String, T> e : inB.entrySet()) {
            if (!inA.containsKey(e.getKey())) {
                rows.add(delta(e.getKey(), detail.apply(e.getValue()), null, e.getValue(), metrics));
            }
        }
        return rows;
    }

    private static <T> Delta delta(String name, String detail, T a, T b, Map<String, ToLongFunction<T>> metrics) {
        Map<String, Delta.Value> values = new LinkedHashMap<>();
        metrics.forEach((metric, f) -> values.put(metric,
                new Delta.Value(a == null ? null : f.applyAsLong(a), b == null ? null : f.applyAsLong(b))));
        return new Delta(name, detail, a == null ? "new" : b == null ? "vanished" : "both", values);
    }

    private static void sortByChange(List<Delta> rows, String metric) {
        rows.sort(Comparator.comparingLong((Delta d) -> -Math.abs(d.metrics().get(metric).change()))
                .thenComparing(Delta::name));
    }

    private static List<Delta> steps(List<StepStats> a, List<StepStats> b) {
        Map<String, ToLongFunction<StepStats>> metrics = new LinkedHashMap<>();
        metrics.put("durationNanos", StepStats::durationNanos);
        metrics.put("kernelNanos", StepStats::kernelNanos);
        metrics.put("memcpyNanos", StepStats::memcpyNanos);
        metrics.put("memsetNanos", StepStats::memsetNanos);
        metrics.put("communicationNanos", StepStats::communicationNanos);
        metrics.put("runtimeNanos", StepStats::runtimeNanos);
        metrics.put("cpuOpNanos", StepStats::cpuOpNanos);
        metrics.put("otherNanos", StepStats::otherNanos);
        List<Delta> rows = new ArrayList<>();
        int n = Math.max(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            StepStats sa = i < a.size() ? a.get(i) : null;
            StepStats sb = i < b.size() ? b.get(i) : null;
            String detail = (sa == null ? "-" : "ProfilerStep#" + sa.step()) + " / "
                    + (sb == null ? "-" : "ProfilerStep#" + sb.step());
            rows.add(delta(Integer.toString(i + 1), detail, sa, sb, metrics));
        }
        int paired = Math.min(a.size(), b.size());
        if (paired > 0) {
            Map<String, Delta.Value> mean = new LinkedHashMap<>();
            metrics.forEach((metric, f) -> mean.put(metric, new Delta.Value(
                    a.subList(0, paired).stream().mapToLong(f).sum() / paired,
                    b.subList(0, paired).stream().mapToLong(f).sum() / paired)));
            rows.add(new Delta("mean", "over " + paired + " paired steps", "both", mean));
        }
        return rows;
    }
}
