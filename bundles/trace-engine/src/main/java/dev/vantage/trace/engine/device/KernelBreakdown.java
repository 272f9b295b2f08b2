package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.trace.engine.DeviceRows;

/**
 * HTA's kernel breakdown ({@code TraceAnalysis.get_gpu_kernel_breakdown} with memory kernels included), over the ranks
 * of a job: how the device time splits by kernel type, overlaps of types apart ({@link #types}), and, per rank and
 * type, the kernels by name with their time's distribution ({@link #kernels}). Within a type, the kernels past the
 * {@code durationRatio} quantile of the running sum of time, and those beyond the {@code topKernels} longest, are
 * summed into one row named {@code others}, as HTA sums them. Times are nanoseconds.
 *
 * @param types the time of each kernel type, and of each overlap of types, over all ranks, longest first
 * @param kernels per rank and type, the kernels by name, sorted by type, name and rank as HTA sorts them
 */
public record KernelBreakdown(List<TypeShare> types, List<KernelRow> kernels) {

    /** HTA's columns of the kernel-type table. */
    public static final List<String> TYPE_COLUMNS = List.of("kernel_type", "sum", "percentage");
    /** HTA's columns of the kernel table, and the count of executions after them. */
    public static final List<String> KERNEL_COLUMNS = List.of("name", "sum (us)", "max (us)", "min (us)", "stddev",
            "mean (us)", "kernel_type", "rank", "count");
    /** HTA's defaults: keep the 10 longest kernels of a type, and those within the first 80 % of its time. */
    public static final int TOP_KERNELS = 10;
    public static final double DURATION_RATIO = 0.8;

    /**
     * The time a kernel type, or an overlap of types ({@code COMPUTATION overlapping COMMUNICATION}), ran.
     *
     * @param kernelType the type's name, or the overlapping types' names joined by {@code " overlapping "}
     * @param nanos the time, summed over the ranks
     * @param percentage its share of all device time, rounded to one decimal as HTA rounds it
     */
    public record TypeShare(String kernelType, long nanos, double percentage) {
        /** A row of {@link #TYPE_COLUMNS}, the time in microseconds. */
        public List<Object> row() {
            return List.of(kernelType, nanos / 1000.0, percentage);
        }
    }

    /**
     * The executions of one kernel name on one rank (or the rank's {@code others}).
     *
     * @param name the kernel's name, or {@code others}
     * @param count how many executions
     * @param sumNanos their time, summed
     * @param maxNanos the longest
     * @param minNanos the shortest
     * @param meanNanos {@code sumNanos / count}
     * @param stddevNanos the sample standard deviation of their durations (0 for one execution)
     * @param kernelType its type
     * @param rank its rank
     */
    public record KernelRow(String name, long count, long sumNanos, long maxNanos, long minNanos, double meanNanos,
            double stddevNanos, KernelType kernelType, int rank) {
        /** A row of {@link #KERNEL_COLUMNS}, times in microseconds. */
        public List<Object> row() {
            return List.of(name, sumNanos / 1000.0, maxNanos / 1000.0, minNanos / 1000.0, stddevNanos / 1000.0,
                    meanNanos / 1000.0, kernelType.name(), rank, count);
        }
    }

    /** The breakdown of the ranks' device work, with HTA's defaults. */
    public static Builder builder() {
        return new Builder(TOP_KERNELS, DURATION_RATIO);
    }

    /**
     * The breakdown of the ranks' device work.
     *
     * @param topKernels how many of a type's longest kernels keep their own row at most
     * @param durationRatio the quantile of the running sum of a type's time past which kernels go to {@code others}
     */
    public static Builder builder(int topKernels, double durationRatio) {
        if (topKernels < 1 || !(durationRatio >= 0 && durationRatio <= 1)) {
            throw new IllegalArgumentException("top kernels " + topKernels + " must be at least 1 and the duration"
                    + " ratio " + durationRatio + " between 0 and 1");
        }
        return new Builder(topKernels, durationRatio);
    }

    /** Takes one rank at a time, so that a job's traces need not be open together. Not thread-safe. */
    public static final class Builder {
        private final int topKernels;
        private final double durationRatio;
        private final Map<String, Long> typeTime = new LinkedHashMap<>();
        private final List<KernelRow> kernels = new ArrayList<>();

        private Builder(int topKernels, double durationRatio) {
            this.topKernels = topKernels;
            this.durationRatio = durationRatio;
        }

        /** Adds a rank's device work. */
        public Builder add(int rank, DeviceWork work) {
            Map<KernelType, DeviceIntervals> byType = new EnumMap<>(KernelType.class);
            Map<KernelType, Map<Integer, Durations>> byName = new EnumMap<>(KernelType.class);
            DeviceRows rows = work.rows();
            for (int k = 0; k < work.size(); k++) {
                int i = work.row(k);
                KernelType type = work.type(k);
                byType.computeIfAbsent(type, t -> new DeviceIntervals()).add(work.start(k),
                        Math.max(work.start(k), work.end(k)));
                byName.computeIfAbsent(type, t -> new HashMap<>())
                        .computeIfAbsent(rows.nameId(i), id -> new Durations(rows.nameOf(id)))
                        .add(work.duration(k));
            }
            overlaps(byType, typeTime);
            for (KernelType type : KernelType.values()) {
                Map<Integer, Durations> names = byName.get(type);
                if (names != null) {
                    kernels.addAll(rows(new ArrayList<>(names.values()), type, rank, topKernels, durationRatio));
                }
            }
            return this;
        }

        /** The breakdown of the ranks added. */
        public KernelBreakdown build() {
            long all = typeTime.values().stream().mapToLong(Long::longValue).sum();
            List<TypeShare> types = new ArrayList<>();
            typeTime.forEach((name, nanos) -> types.add(new TypeShare(name, nanos,
                    all == 0 ? 0 : Math.round(1000.0 * nanos / all) / 10.0)));
            types.sort(Comparator.comparingLong(TypeShare::nanos).reversed());
            List<KernelRow> sorted = new ArrayList<>(kernels);
            sorted.sort(Comparator.comparing((KernelRow k) -> k.kernelType().name()).thenComparing(KernelRow::name)
                    .thenComparingInt(KernelRow::rank));
            return new KernelBreakdown(List.copyOf(types), List.copyOf(sorted));
        }
    }

    /**
     * Adds to {@code time} how long each set of types ran at once on this rank: each type's work merged into
     * intervals, then swept together; a moment where two types run counts once, under both names.
     */
    private static void overlaps(Map<KernelType, DeviceIntervals> byType, Map<String, Long> time) {
        int n = 0;
        Map<KernelType, long[]> merged = new EnumMap<>(KernelType.class);
        for (Map.Entry<KernelType, DeviceIntervals> e : byType.entrySet()) {
            long[] m = e.getValue().merged();
            merged.put(e.getKey(), m);
            n += m.length;
        }
        // each boundary as (time, bit to add or remove); at one time, the order does not change any length
        long[] times = new long[n];
        int[] deltas = new int[n];
        int k = 0;
        for (Map.Entry<KernelType, long[]> e : merged.entrySet()) {
            int bit = 1 << e.getKey().ordinal();
            long[] m = e.getValue();
            for (int i = 0; i < m.length; i += 2) {
                times[k] = m[i];
                deltas[k++] = bit;
                times[k] = m[i + 1];
                deltas[k++] = -bit;
            }
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingLong(i -> times[i]));
        int running = 0;
        for (int j = 0; j < n; j++) {
            running += deltas[order[j]];
            if (running > 0 && j + 1 < n) {
                long length = times[order[j + 1]] - times[order[j]];
                if (length > 0) {
                    time.merge(label(running), length, Long::sum);
                }
            }
        }
    }

    private static String label(int bits) {
        StringBuilder s = new StringBuilder();
        for (KernelType t : KernelType.values()) {
            if ((bits & (1 << t.ordinal())) != 0) {
                s.append(s.length() == 0 ? "" : " overlapping ").append(t.name());
            }
        }
        return s.toString();
    }

    /**
     * One type's kernels on one rank, by name, longest first, with those past the quantile or the top count summed
     * into {@code others}.
     */
    private static List<KernelRow> rows(List<Durations> names, KernelType type, int rank, int topKernels,
            double durationRatio) {
        names.sort(Comparator.comparingLong((Durations d) -> d.sum).reversed().thenComparing(d -> d.name));
        List<KernelRow> out = new ArrayList<>();
        if (names.size() <= topKernels) {
            names.forEach(d -> out.add(d.row(type, rank)));
            return out;
        }
        double[] cumulative = new double[names.size()];
        long running = 0;
        for (int i = 0; i < names.size(); i++) {
            running += names.get(i).sum;
            cumulative[i] = running;
        }
        double cut = quantile(cumulative, durationRatio);
        Durations others = new Durations("others");
        for (int i = 0; i < names.size(); i++) {
            Durations d = names.get(i);
            if (cumulative[i] > cut || i >= topKernels) {
                others.addAll(d);
            } else {
                out.add(d.row(type, rank));
            }
        }
        if (others.count > 0) {
            out.add(others.row(type, rank));
        }
        return out;
    }

    /**
     * pandas' {@code describe()} of some values: count, mean, standard deviation (null for fewer than two), min, the
     * quartiles and max, as HTA's summaries give them.
     *
     * @param v the values, sorted; at least one
     */
    static List<Object> describe(double[] v) {
        double mean = java.util.Arrays.stream(v).average().orElse(0);
        double squares = 0;
        for (double x : v) {
            squares += (x - mean) * (x - mean);
        }
        Double std = v.length < 2 ? null : Math.sqrt(squares / (v.length - 1));
        return java.util.Arrays.asList((long) v.length, mean, std, v[0], quantile(v, 0.25), quantile(v, 0.5),
                quantile(v, 0.75), v[v.length - 1]);
    }

    /** The quantile of sorted values with linear interpolation between the two nearest ranks (pandas' default). */
    static double quantile(double[] sorted, double q) {
        double at = (sorted.length - 1) * q;
        int lo = (int) Math.floor(at);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
    }

    /**
     * The durations of one kernel name: count, sum, extremes, and the mean and sum of squared deviations kept as
     * Welford's method keeps them (merged by Chan's formula), so the deviation of long kernels loses no digits.
     */
    private static final class Durations {
        final String name;
        long count;
        long sum;
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        double mean;
        double squares;

        Durations(String name) {
            this.name = name;
        }

        void add(long nanos) {
            count++;
            sum += nanos;
            max = Math.max(max, nanos);
            min = Math.min(min, nanos);
            double delta = nanos - mean;
            mean += delta / count;
            squares += delta * (nanos - mean);
        }

        void addAll(Durations d) {
            long n = count + d.count;
            double delta = d.mean - mean;
            squares += d.squares + delta * delta * count * d.count / n;
            mean += delta * d.count / n;
            count = n;
            sum += d.sum;
            max = Math.max(max, d.max);
            min = Math.min(min, d.min);
        }

        KernelRow row(KernelType type, int rank) {
            double deviation = count < 2 ? 0 : Math.sqrt(squares / (count - 1));
            return new KernelRow(name, count, sum, max, min, (double) sum / count, deviation, type, rank);
        }
    }
}
