package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.trace.engine.DeviceRows;

/**
 * HTA's queue length ({@code TraceAnalysis.get_queue_length_time_series}, {@code get_queue_length_summary},
 * {@code get_time_spent_blocked_on_full_queue}): per stream, how many launched pieces of work have not started yet.
 * The count goes up when a launch call starts (HTA's list of them for the queue, and other runtimes' calls that
 * launched work: {@link LaunchCalls}) and down when the work it launched starts; the work is that {@link DeviceWork} counts. The series has a point at each change, in time order
 * (at one instant, launches before starts). Times are nanoseconds.
 *
 * @param rank the rank
 * @param streams per stream, ascending, its series
 * @param spanNanos the rank's whole trace, from its first event to its last, for the share of time at the full queue
 */
public record QueueLength(int rank, Map<Long, Series> streams, long spanNanos) {

    /** CUDA's launch queue holds 1,024 launches per stream: at that length a launch call blocks. */
    public static final int MAX_QUEUE_LENGTH = 1024;

    /** The series' columns. */
    public static final List<String> COLUMNS = List.of("rank", "stream", "ts", "queue_length");
    /** The summary's columns: pandas' {@code describe()} of the series' values, as HTA's summary gives them. */
    public static final List<String> SUMMARY_COLUMNS = List.of("rank", "stream", "count", "mean", "std", "min", "25%",
            "50%", "75%", "max", "duration_at_max_queue_length", "relative_duration_at_max_queue_length");

    /**
     * One stream's queue length over time.
     *
     * @param times the instants it changed, nanoseconds
     * @param lengths its value from each instant on
     */
    public record Series(long[] times, int[] lengths) {
        /** The time the queue spent at {@code max} launches or more (the last value has no end, and no time). */
        public long nanosAtLeast(int max) {
            long total = 0;
            for (int i = 0; i + 1 < times.length; i++) {
                if (lengths[i] >= max) {
                    total += times[i + 1] - times[i];
                }
            }
            return total;
        }
    }

    /** The queue lengths of a rank's device work. */
    public static QueueLength of(int rank, DeviceWork work) {
        DeviceRows rows = work.rows();
        // per stream: launches (+1 at the call's start) and starts (-1 at the work's start)
        Map<Long, List<long[]>> changes = new TreeMap<>();
        for (int k = 0; k < work.size(); k++) {
            int i = work.row(k);
            int c = work.launch(k, LaunchCalls.QUEUE);
            if (c >= 0) {
                List<long[]> s = changes.computeIfAbsent(rows.streamId(i), x -> new ArrayList<>());
                s.add(new long[] {work.launchStart(k), +1});
                s.add(new long[] {work.start(k), -1});
            }
        }
        Map<Long, Series> streams = new TreeMap<>();
        for (Map.Entry<Long, List<long[]>> e : changes.entrySet()) {
            List<long[]> s = e.getValue();
            s.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));
            long[] times = new long[s.size()];
            int[] lengths = new int[s.size()];
            int length = 0;
            for (int j = 0; j < s.size(); j++) {
                length += (int) s.get(j)[1];
                times[j] = s.get(j)[0];
                lengths[j] = length;
            }
            streams.put(e.getKey(), new Series(times, lengths));
        }
        return new QueueLength(rank, streams, work.traceNanos());
    }

    /** The series as rows of {@link #COLUMNS}, {@code ts} in microseconds on the trace's clock. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        streams.forEach((stream, s) -> {
            for (int i = 0; i < s.times().length; i++) {
                out.add(List.of(rank, stream, s.times()[i] / 1000.0, s.lengths()[i]));
            }
        });
        return out;
    }

    /**
     * The summary rows ({@link #SUMMARY_COLUMNS}): the statistics of each stream's series values, and the time it
     * spent at {@code maxQueueLength} or more, in microseconds and as a share of the rank's trace.
     */
    public List<List<Object>> summary(int maxQueueLength) {
        List<List<Object>> out = new ArrayList<>();
        streams.forEach((stream, s) -> {
            long full = s.nanosAtLeast(maxQueueLength);
            List<Object> row = new ArrayList<>(List.of(rank, stream));
            row.addAll(KernelBreakdown.describe(Arrays.stream(s.lengths()).asDoubleStream().sorted().toArray()));
            row.add(full / 1000.0);
            row.add(spanNanos == 0 ? 0.0 : (double) full / spanNanos);
            out.add(row);
        });
        return out;
    }
}
