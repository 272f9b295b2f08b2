package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.StepSpan;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.HostRows;

/**
 * HTA's frequent kernel sequences ({@code TraceAnalysis.get_frequent_cuda_kernel_sequences}): the device work that the
 * host events named like an operator launched, as patterns. The roots are the ops and annotations whose name contains
 * the operator's name (and {@code ProfilerStep#N} spans, when it names them), at the shallowest depth any of them is
 * found at, that started before the last profiler step (the window {@link DeviceWork} counts). A root's sequence is its
 * name followed by the names of the kernels, copies and fills whose launch call ran inside it on its thread, in the
 * order they started on the device; a root with fewer than {@code minPatternLength} pieces of work has none. Equal
 * sequences are one pattern: how many roots gave it, their device time and their own time.
 *
 * @param rank the rank
 * @param operator the operator's name, or part of it
 * @param patterns the patterns, most frequent first, then by text
 */
public record Sequences(int rank, String operator, List<Pattern> patterns) {

    /** HTA's default for the shortest sequence. */
    public static final int MIN_PATTERN_LENGTH = 3;

    /** The table's columns, as HTA's DataFrame names them (with the rank and the operator before them). */
    public static final List<String> COLUMNS = List.of("rank", "operator", "pattern", "count",
            "GPU kernel duration (us)", "CPU op duration (us)");

    /**
     * One pattern.
     *
     * @param pattern the root's name and its work's names, joined with {@code |}
     * @param count how many roots gave it
     * @param deviceNanos the time of their work, summed
     * @param hostNanos the roots' own time, summed
     */
    public record Pattern(String pattern, long count, long deviceNanos, long hostNanos) {
    }

    /** One root: a host event named like the operator, and the work launched inside it. */
    private static final class Root {
        final String name;
        final long start;
        final long end;
        final List<Integer> work = new ArrayList<>();

        Root(String name, long start, long end) {
            this.name = name;
            this.start = start;
            this.end = end;
        }
    }

    /** The patterns of a rank's trace under an operator. */
    public static Sequences of(int rank, TraceData trace, DeviceWork work, String operator, int minPatternLength) {
        if (operator.isEmpty()) {
            throw new IllegalArgumentException("the operator's name is empty");
        }
        long cut = work.cutNanos();
        Threads threads = Threads.of(trace, cut);
        // the candidates: {thread id, depth as HTA counts it, start, end, name id or -1 - step index}
        List<long[]> found = new ArrayList<>();
        int depth = Integer.MAX_VALUE;
        List<StepSpan> steps = trace.steps();
        for (int s = 0; s < steps.size(); s++) {
            StepSpan step = steps.get(s);
            if (step.threadId() != -1 && step.startNanos() < cut && step.name().contains(operator)) {
                found.add(new long[] {step.threadId(), 0, step.startNanos(), step.endNanos(), -1 - s});
                depth = 0;
            }
        }
        for (HostThread t : trace.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size(); i++) {
                int kind = rows.kind(i);
                if ((kind == EventKind.CPU_OP.id() || kind == EventKind.USER_ANNOTATION.id()) && rows.start(i) < cut
                        && trace.name(rows.name(i)).contains(operator)) {
                    int d = threads.depth(t, i);
                    found.add(new long[] {t.threadId(), d, rows.start(i), rows.end(i), rows.name(i)});
                    depth = Math.min(depth, d);
                }
            }
        }
        Map<Long, List<Root>> roots = new HashMap<>();
        for (long[] f : found) {
            if (f[1] == depth) {
                String name = f[4] >= 0 ? trace.name((int) f[4]) : steps.get((int) (-1 - f[4])).name();
                roots.computeIfAbsent(f[0], x -> new ArrayList<>()).add(new Root(name, f[2], f[3]));
            }
        }
        roots.values().forEach(r -> r.sort(Comparator.comparingLong(x -> x.start)));
        // each piece of work to the root its launch call ran inside: on the call's thread, or, for a call of the
        // backward thread inside an op HTA puts under a step of the main thread, under that step's roots
        DeviceRows rows = work.rows();
        for (int k = 0; k < work.size(); k++) {
            int call = work.launch(k);
            if (call < 0) {
                continue;
            }
            long thread = rows.launchThreadId(call);
            List<Root> on = roots.get(thread);
            Root r = on == null ? null : enclosing(on, rows.start(call), rows.end(call));
            long[] linked = r == null ? threads.linkedTop(thread, rows.start(call), rows.end(call)) : null;
            if (linked != null && roots.containsKey(threads.main)) {
                r = enclosing(roots.get(threads.main), linked[0], linked[1]);
            }
            if (r != null) {
                r.work.add(work.row(k));
            }
        }
        Map<String, long[]> byPattern = new HashMap<>();
        for (List<Root> on : roots.values()) {
            for (Root r : on) {
                if (r.work.size() < minPatternLength) {
                    continue;
                }
                Integer[] w = r.work.toArray(new Integer[0]);
                Arrays.sort(w, Comparator.comparingLong(rows::start));
                StringBuilder pattern = new StringBuilder(r.name);
                long device = 0;
                for (int i : w) {
                    pattern.append('|').append(rows.name(i));
                    device += rows.duration(i);
                }
                long[] sums = byPattern.computeIfAbsent(pattern.toString(), x -> new long[3]);
                sums[0]++;
                sums[1] += device;
                sums[2] += r.end - r.start;
            }
        }
        List<Pattern> patterns = new ArrayList<>();
        byPattern.forEach((p, s) -> patterns.add(new Pattern(p, s[0], s[1], s[2])));
        patterns.sort(Comparator.comparingLong(Pattern::count).reversed().thenComparing(Pattern::pattern));
        return new Sequences(rank, operator, List.copyOf(patterns));
    }

    /**
     * The call stacks as HTA builds them: a step ({@code ProfilerStep#N}) is the parent of its thread's events inside
     * it (depth 0 for the step); and when the trace has one thread with steps (the main thread) and one other thread
     * with {@code autograd::} events (the backward thread), each of the backward thread's outermost events that lies
     * within a backward annotation of the main thread ({@code ## backward ##...}), or else within a step, becomes that
     * parent's child, with everything inside it.
     */
    private static final class Threads {
        /** The main thread's id, or -1 when there is no pair of threads to link. */
        final long main;
        final long backward;
        /** The backward thread's outermost events: {start, end, depth of their parent or -1 when not linked}. */
        final List<long[]> tops;
        final Map<Long, long[]> stepsByThread;

        private Threads(long main, long backward, List<long[]> tops, Map<Long, long[]> stepsByThread) {
            this.main = main;
            this.backward = backward;
            this.tops = tops;
            this.stepsByThread = stepsByThread;
        }

        static Threads of(TraceData trace, long cut) {
            // per thread, its steps' spans, flattened {start, end, start, end, ...} in start order
            Map<Long, List<Long>> spans = new HashMap<>();
            for (StepSpan s : trace.steps()) {
                if (s.threadId() != -1 && s.startNanos() < cut) {
                    List<Long> l = spans.computeIfAbsent(s.threadId(), x -> new ArrayList<>());
                    l.add(s.startNanos());
                    l.add(s.endNanos());
                }
            }
            Map<Long, long[]> stepsByThread = new HashMap<>();
            spans.forEach((t, l) -> {
                long[] a = l.stream().mapToLong(Long::longValue).toArray();
                Integer[] order = new Integer[a.length / 2];
                for (int i = 0; i < order.length; i++) {
                    order[i] = i;
                }
                Arrays.sort(order, Comparator.comparingLong(i -> a[2 * i]));
                long[] sorted = new long[a.length];
                for (int i = 0; i < order.length; i++) {
                    sorted[2 * i] = a[2 * order[i]];
                    sorted[2 * i + 1] = a[2 * order[i] + 1];
                }
                stepsByThread.put(t, sorted);
            });
            List<Long> backwardThreads = new ArrayList<>();
            HostThread mainThread = null;
            HostThread backwardThread = null;
            for (HostThread t : trace.threads()) {
                if (stepsByThread.containsKey(t.threadId())) {
                    continue;
                }
                HostRows rows = t.rows();
                for (int i = 0; i < rows.size(); i++) {
                    if (rows.start(i) < cut && trace.name(rows.name(i)).contains("autograd::")) {
                        backwardThreads.add(t.threadId());
                        backwardThread = t;
                        break;
                    }
                }
            }
            if (stepsByThread.size() != 1 || backwardThreads.size() != 1) {
                return new Threads(-1, -1, List.of(), stepsByThread);
            }
            long main = stepsByThread.keySet().iterator().next();
            for (HostThread t : trace.threads()) {
                if (t.threadId() == main) {
                    mainThread = t;
                }
            }
            // the parents: the main thread's backward annotations if it has any, else its steps
            List<long[]> parents = new ArrayList<>();
            if (mainThread != null) {
                HostRows rows = mainThread.rows();
                for (int i = 0; i < rows.size(); i++) {
                    if (rows.start(i) < cut && trace.name(rows.name(i)).startsWith("## backward ##")) {
                        parents.add(new long[] {rows.start(i), rows.end(i),
                                rows.depth(i) + (inside(stepsByThread.get(main), rows.start(i)) ? 1 : 0)});
                    }
                }
            }
            if (parents.isEmpty()) {
                long[] s = stepsByThread.get(main);
                for (int i = 0; i < s.length; i += 2) {
                    parents.add(new long[] {s[i], s[i + 1], 0});
                }
            }
            List<long[]> tops = new ArrayList<>();
            HostRows rows = backwardThread.rows();
            for (int i = 0; i < rows.size(); i++) {
                if (rows.depth(i) != 0 || rows.start(i) >= cut) {
                    continue;
                }
                long parentDepth = -1;
                for (long[] p : parents) {
                    if (rows.start(i) >= p[0] && rows.end(i) <= p[1]) {
                        parentDepth = p[2];
                        break;
                    }
                }
                tops.add(new long[] {rows.start(i), rows.end(i), parentDepth});
            }
            tops.sort(Comparator.comparingLong(x -> x[0]));
            return new Threads(main, backwardThreads.get(0), tops, stepsByThread);
        }

        /** Whether a time is inside one of a thread's steps (flattened spans in start order). */
        private static boolean inside(long[] spans, long at) {
            if (spans == null) {
                return false;
            }
            for (int i = 0; i < spans.length; i += 2) {
                if (at >= spans[i] && at < spans[i + 1]) {
                    return true;
                }
            }
            return false;
        }

        /** The depth HTA gives a host event. */
        int depth(HostThread t, int i) {
            HostRows rows = t.rows();
            if (t.threadId() == backward) {
                long[] top = top(rows.start(i), rows.end(i));
                return top != null && top[2] >= 0 ? (int) (rows.depth(i) + top[2] + 1) : rows.depth(i);
            }
            return rows.depth(i) + (inside(stepsByThread.get(t.threadId()), rows.start(i)) ? 1 : 0);
        }

        /** The backward thread's outermost event holding a span, or null. */
        private long[] top(long start, long end) {
            int lo = 0;
            int hi = tops.size() - 1;
            long[] best = null;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (tops.get(mid)[0] <= start) {
                    best = tops.get(mid);
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return best != null && end <= best[1] ? best : null;
        }

        /** For a call of the backward thread inside an outermost event linked to the main thread: that event's span. */
        long[] linkedTop(long thread, long start, long end) {
            if (thread != backward || backward == -1) {
                return null;
            }
            long[] top = top(start, end);
            return top != null && top[2] >= 0 ? top : null;
        }
    }

    /** The root whose span holds a call, of roots sorted by start that do not overlap; null for none. */
    private static Root enclosing(List<Root> roots, long start, long end) {
        int lo = 0;
        int hi = roots.size() - 1;
        Root best = null;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (roots.get(mid).start <= start) {
                best = roots.get(mid);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return best != null && end <= best.end ? best : null;
    }

    /** The patterns as rows of {@link #COLUMNS}, times in microseconds. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        for (Pattern p : patterns) {
            out.add(List.of(rank, operator, p.pattern(), p.count(), p.deviceNanos() / 1000.0, p.hostNanos() / 1000.0));
        }
        return out;
    }
}
