package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.trace.engine.DeviceRows;

/**
 * HTA's idle time breakdown ({@code TraceAnalysis.get_idle_time_breakdown}): on each stream, the gaps between one
 * piece of device work's end and the next one's start, by what the device waited for. {@code host_wait}: the next
 * work's runtime call started after the previous work had ended, so the host had not launched it yet;
 * {@code kernel_wait}: otherwise, a gap shorter than the kernel-wait threshold, the cost of starting back-to-back
 * kernels; {@code other}: the rest (a stream waiting on another, a synchronisation). The work is that
 * {@link DeviceWork} counts, in start order per stream. Times are nanoseconds.
 *
 * @param rank the rank
 * @param rows per stream (ascending), its categories in HTA's order ({@code host_wait}, {@code kernel_wait},
 *     {@code other}), each present when a gap fell in it ({@code other} always, as HTA lists it)
 */
public record IdleTime(int rank, List<Row> rows) {

    /** HTA's columns. */
    public static final List<String> COLUMNS = List.of("rank", "stream", "idle_category", "idle_time",
            "idle_time_ratio");
    /**
     * HTA's threshold: a gap under 30 is a kernel wait. HTA's documentation says nanoseconds, but it compares the
     * gaps in microseconds, so its default is 30 microseconds; this is that default.
     */
    public static final long KERNEL_WAIT_US = 30;

    private static final String[] CATEGORIES = {"host_wait", "kernel_wait", "other"};

    /**
     * One category of one stream.
     *
     * @param stream the stream
     * @param category {@code host_wait}, {@code kernel_wait} or {@code other}
     * @param nanos the gaps' time
     * @param ratio its share of the stream's gaps, rounded to two decimals as HTA rounds it; null when the stream has
     *     no gap time at all
     */
    public record Row(long stream, String category, long nanos, Double ratio) {
    }

    /** The breakdown of a rank's device work. */
    public static IdleTime of(int rank, DeviceWork work, long kernelWaitNanos) {
        DeviceRows rows = work.rows();
        // per stream, the positions k of its work in DeviceWork
        Map<Long, List<Integer>> byStream = new TreeMap<>();
        for (int k = 0; k < work.size(); k++) {
            byStream.computeIfAbsent(rows.streamId(work.row(k)), s -> new ArrayList<>()).add(k);
        }
        List<Row> out = new ArrayList<>();
        for (Map.Entry<Long, List<Integer>> e : byStream.entrySet()) {
            List<Integer> onStream = e.getValue();
            onStream.sort((a, b) -> Long.compare(work.start(a), work.start(b)));
            long[] sums = new long[3];
            boolean[] seen = new boolean[3];
            seen[2] = true;
            for (int j = 1; j < onStream.size(); j++) {
                int k = onStream.get(j);
                long previousEnd = work.end(onStream.get(j - 1));
                long gap = work.start(k) - previousEnd;
                int category = work.launch(k) >= 0 && work.launchStart(k) > previousEnd ? 0
                        : gap < kernelWaitNanos ? 1 : 2;
                sums[category] += gap;
                seen[category] = true;
            }
            long total = Arrays.stream(sums).sum();
            for (int c = 0; c < 3; c++) {
                if (seen[c]) {
                    out.add(new Row(e.getKey(), CATEGORIES[c], sums[c],
                            total == 0 ? null : Math.round(100.0 * sums[c] / total) / 100.0));
                }
            }
        }
        return new IdleTime(rank, List.copyOf(out));
    }

    /** The rows of {@link #COLUMNS}, times in microseconds. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        for (Row r : rows) {
            out.add(Arrays.asList(rank, r.stream(), r.category(), r.nanos() / 1000.0, r.ratio()));
        }
        return out;
    }
}
