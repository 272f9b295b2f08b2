package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.StepSpan;
import dev.vantage.trace.engine.TraceData;

/**
 * How far each rank's clock is from a reference rank's, found from the ends of their collectives: a collective's
 * kernels end together on the ranks that take part (an all-reduce on all of them, a send/receive on the two peers),
 * whatever each host's clock says. Each rank's communication kernels are grouped by step ({@code ProfilerStep#N} of
 * their launch) and name. For a rank and the reference, every difference between the ends of two kernels of one group
 * whose positions in it are at most {@value #WINDOW} apart is a candidate shift; the candidate that brings the most of
 * the rank's kernels within {@value #TOLERANCE_NANOS} ns of a reference kernel of their group wins (the smaller one on a
 * tie), and the shift is the median of those kernels' differences. A rank where no candidate brings {@value
 * #MIN_MATCHES} kernels or more together is not shifted, and says so ({@link Shift#matched()} 0).
 */
public final class ClockAlignment {

    /** How far apart in their group two kernels' positions may be to make a candidate. */
    static final int WINDOW = 2;
    /** How close two ends must be, once shifted, to count as one collective. */
    public static final long TOLERANCE_NANOS = 20_000;
    /**
     * The fewest kernels a shift must bring onto the reference's to be taken: one coincidence says nothing (an
     * emulated device's collectives end milliseconds apart on two ranks of one host, and one of them may fall within
     * the tolerance by chance).
     */
    public static final int MIN_MATCHES = 2;
    /** At most this many kernels of a rank make candidates (spread over the trace), which bounds the work. */
    private static final int CANDIDATE_KERNELS = 400;

    private ClockAlignment() {
    }

    /**
     * One rank's shift.
     *
     * @param rank the rank
     * @param nanos what to add to the rank's times to put them on the reference's clock
     * @param matched how many of the rank's communication kernels ended within the tolerance of the reference's, so
     *     shifted; 0 when fewer than {@link #MIN_MATCHES} did under any shift (then {@code nanos} is 0)
     * @param kernels how many communication kernels the rank has
     * @param spreadNanos the largest distance, after the shift, between a matched kernel's end and its reference's
     */
    public record Shift(int rank, long nanos, int matched, int kernels, long spreadNanos) {
    }

    /**
     * A rank's communication kernels, by group: the step of their launch and their name ({@code "551 ncclKernel..."},
     * {@code "- name"} outside steps), each group's ends in epoch nanoseconds, in order.
     */
    public static Map<String, long[]> collectives(TraceData trace) {
        DeviceWork work = DeviceWork.of(trace, true);
        DeviceRows rows = work.rows();
        List<StepSpan> steps = new ArrayList<>();
        for (StepSpan s : trace.steps()) {
            if (s.threadId() != -1) {
                steps.add(s);
            }
        }
        Map<String, List<Long>> groups = new TreeMap<>();
        for (int k = 0; k < work.size(); k++) {
            if (work.type(k) != KernelType.COMMUNICATION) {
                continue;
            }
            int i = work.row(k);
            int call = work.launch(k);
            long at = call >= 0 ? rows.start(call) : rows.start(i);
            String step = "-";
            for (StepSpan s : steps) {
                if (at >= s.startNanos() && at < s.endNanos()) {
                    step = Long.toString(s.number());
                    break;
                }
            }
            groups.computeIfAbsent(step + " " + rows.name(i), x -> new ArrayList<>())
                    .add(rows.end(i) + trace.epochOffsetNanos());
        }
        Map<String, long[]> out = new TreeMap<>();
        groups.forEach((g, ends) -> out.put(g, ends.stream().mapToLong(Long::longValue).sorted().toArray()));
        return out;
    }

    /**
     * The shift of every rank onto the clock of the lowest rank, which is not shifted.
     *
     * @param ranks each rank's {@link #collectives}
     */
    public static Map<Integer, Shift> shifts(Map<Integer, Map<String, long[]>> ranks) {
        Map<Integer, Shift> out = new TreeMap<>();
        if (ranks.isEmpty()) {
            return out;
        }
        TreeMap<Integer, Map<String, long[]>> sorted = new TreeMap<>(ranks);
        Map<String, long[]> reference = sorted.firstEntry().getValue();
        int referenceRank = sorted.firstKey();
        sorted.forEach((rank, groups) -> out.put(rank, rank == referenceRank
                ? new Shift(rank, 0, count(groups), count(groups), 0)
                : shift(rank, reference, groups)));
        return out;
    }

    private static int count(Map<String, long[]> groups) {
        return groups.values().stream().mapToInt(g -> g.length).sum();
    }

    private static Shift shift(int rank, Map<String, long[]> reference, Map<String, long[]> groups) {
        int kernels = count(groups);
        int stride = Math.max(1, kernels / CANDIDATE_KERNELS);
        List<Long> candidates = new ArrayList<>();
        int seen = 0;
        for (Map.Entry<String, long[]> e : groups.entrySet()) {
            long[] ref = reference.get(e.getKey());
            if (ref == null) {
                seen += e.getValue().length;
                continue;
            }
            long[] ends = e.getValue();
            for (int j = 0; j < ends.length; j++, seen++) {
                if (seen % stride != 0) {
                    continue;
                }
                for (int i = Math.max(0, j - WINDOW); i <= Math.min(ref.length - 1, j + WINDOW); i++) {
                    candidates.add(ref[i] - ends[j]);
                }
            }
        }
        if (candidates.isEmpty()) {
            return new Shift(rank, 0, 0, kernels, 0);
        }
        long best = 0;
        int bestScore = -1;
        long[] sortedCandidates = candidates.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
        for (long c : sortedCandidates) {
            int score = differences(reference, groups, c).length;
            if (score > bestScore || score == bestScore && Math.abs(c) < Math.abs(best)) {
                best = c;
                bestScore = score;
            }
        }
        if (bestScore < MIN_MATCHES) {
            return new Shift(rank, 0, 0, kernels, 0);
        }
        long[] d = differences(reference, groups, best);
        Arrays.sort(d);
        long nanos = d[(d.length - 1) / 2];
        long[] matched = differences(reference, groups, nanos);
        long spread = 0;
        for (long x : matched) {
            spread = Math.max(spread, Math.abs(x - nanos));
        }
        return new Shift(rank, nanos, matched.length, kernels, spread);
    }

    /**
     * For each of a rank's kernels that ends, shifted by {@code by}, within the tolerance of a reference kernel of
     * its group, the difference between that reference end and its own (the nearest reference end).
     */
    private static long[] differences(Map<String, long[]> reference, Map<String, long[]> groups, long by) {
        long[] out = new long[count(groups)];
        int n = 0;
        for (Map.Entry<String, long[]> e : groups.entrySet()) {
            long[] ref = reference.get(e.getKey());
            if (ref == null) {
                continue;
            }
            for (long end : e.getValue()) {
                long at = end + by;
                int p = Arrays.binarySearch(ref, at);
                int q = p >= 0 ? p : -p - 1;
                long nearest = Long.MAX_VALUE;
                for (int i = Math.max(0, q - 1); i <= Math.min(ref.length - 1, q); i++) {
                    if (Math.abs(ref[i] - at) < Math.abs(nearest - at) || nearest == Long.MAX_VALUE) {
                        nearest = ref[i];
                    }
                }
                if (nearest != Long.MAX_VALUE && Math.abs(nearest - at) <= TOLERANCE_NANOS) {
                    out[n++] = nearest - end;
                }
            }
        }
        return Arrays.copyOf(out, n);
    }
}
