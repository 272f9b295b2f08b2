package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.trace.engine.DeviceRows;

/**
 * HTA's memory bandwidth ({@code TraceAnalysis.get_memory_bw_time_series}, {@code get_memory_bw_summary}): for each kind
 * of copy or fill ({@code Memcpy HtoD}, {@code Memcpy DtoH}, {@code Memcpy DtoD}, ..., {@code Memset}: the first eleven
 * characters of a copy's name, as HTA names them), the bandwidth in use over time, the sum of the bandwidths of the
 * copies of that kind running at each instant. A copy adds its bandwidth at its start and takes it away at its end;
 * the series has a point at each change. A copy of no duration lasts one microsecond, as in HTA. A copy's bandwidth is
 * Kineto's {@code memory bandwidth (GB/s)}; a trace that does not give one (Vantage's emulated devices, older Kineto)
 * gets its {@code bytes} over its duration, which is how Kineto computes it, where HTA would have none. The work is
 * that {@link DeviceWork} counts.
 *
 * <p>At one instant, ends are taken before starts, so that a copy that starts as another ends is not counted with it;
 * HTA's order at a tie is that of pandas' unstable sort, so its series may hold one more point there, with the sum of
 * both ({@code docs/analysis.md}).
 *
 * @param rank the rank
 * @param kinds per kind of copy, in name order, its series
 */
public record Bandwidth(int rank, Map<String, Series> kinds) {

    /** The series' columns, as HTA's time series names them. */
    public static final List<String> COLUMNS = List.of("rank", "ts", "pid", "name", "memory_bw_gbps");
    /** The summary's columns: pandas' {@code describe()} of the series' values above zero, as HTA's summary gives them. */
    public static final List<String> SUMMARY_COLUMNS = List.of("rank", "name", "count", "mean", "std", "min", "25%",
            "50%", "75%", "max");

    /**
     * One kind's bandwidth over time.
     *
     * @param times the instants it changed, nanoseconds
     * @param devices the device index of the copy that changed it
     * @param gbps its value from each instant on, GB/s
     */
    public record Series(long[] times, int[] devices, double[] gbps) {
    }

    /** The name HTA gives a copy's kind: {@code Memset}, the first eleven characters of a copy, or {@code Memcpy Unknown}. */
    public static String kind(String name) {
        if (name.startsWith("Memset")) {
            return "Memset";
        }
        if (!name.startsWith("Memcpy")) {
            return "Memcpy Unknown";
        }
        return name.length() <= 11 ? name : name.substring(0, 11);
    }

    /**
     * The bandwidth of a copy in GB/s: its {@code memory bandwidth (GB/s)}, else its {@code bytes} over its duration,
     * else NaN.
     */
    static double gbps(DeviceRows rows, int i) {
        double given = rows.number(i, "memory bandwidth (GB/s)");
        if (!Double.isNaN(given)) {
            return given;
        }
        double bytes = rows.number(i, "bytes");
        long nanos = rows.duration(i);
        return Double.isNaN(bytes) || nanos <= 0 ? Double.NaN : bytes / nanos;
    }

    /** The bandwidth series of a rank's copies and fills. */
    public static Bandwidth of(int rank, DeviceWork work) {
        DeviceRows rows = work.rows();
        // per kind: {time, device, sign} with the bandwidth beside it
        Map<String, List<long[]>> changes = new TreeMap<>();
        Map<String, List<Double>> values = new TreeMap<>();
        for (int k = 0; k < work.size(); k++) {
            if (work.type(k) != KernelType.MEMORY) {
                continue;
            }
            int i = work.row(k);
            double bw = gbps(rows, i);
            if (Double.isNaN(bw)) {
                continue;
            }
            String kind = kind(rows.name(i));
            long start = work.start(k);
            long end = work.duration(k) <= 0 ? start + 1000 : work.end(k);
            List<long[]> c = changes.computeIfAbsent(kind, x -> new ArrayList<>());
            List<Double> v = values.computeIfAbsent(kind, x -> new ArrayList<>());
            c.add(new long[] {start, rows.deviceIndex(i), +1, v.size()});
            c.add(new long[] {end, rows.deviceIndex(i), -1, v.size()});
            v.add(bw);
        }
        Map<String, Series> kinds = new TreeMap<>();
        changes.forEach((kind, c) -> {
            List<Double> v = values.get(kind);
            c.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[2], b[2]));
            long[] times = new long[c.size()];
            int[] devices = new int[c.size()];
            double[] gbps = new double[c.size()];
            double sum = 0;
            for (int j = 0; j < c.size(); j++) {
                long[] e = c.get(j);
                sum += e[2] * v.get((int) e[3]);
                times[j] = e[0];
                devices[j] = (int) e[1];
                // a sum of doubles that returns to no copy running is 0, not a rounding residue
                gbps[j] = Math.abs(sum) < 1e-9 ? 0 : sum;
            }
            kinds.put(kind, new Series(times, devices, gbps));
        });
        return new Bandwidth(rank, kinds);
    }

    /** The series as rows of {@link #COLUMNS}, {@code ts} in microseconds on the trace's clock. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        kinds.forEach((kind, s) -> {
            for (int i = 0; i < s.times().length; i++) {
                out.add(List.of(rank, s.times()[i] / 1000.0, s.devices()[i], kind, s.gbps()[i]));
            }
        });
        return out;
    }

    /** The summary rows ({@link #SUMMARY_COLUMNS}): the statistics of each kind's series values above zero. */
    public List<List<Object>> summary() {
        List<List<Object>> out = new ArrayList<>();
        kinds.forEach((kind, s) -> {
            double[] v = Arrays.stream(s.gbps()).filter(x -> x > 0).sorted().toArray();
            if (v.length == 0) {
                return;
            }
            List<Object> row = new ArrayList<>(List.of(rank, kind));
            row.addAll(KernelBreakdown.describe(v));
            out.add(row);
        });
        return out;
    }
}
