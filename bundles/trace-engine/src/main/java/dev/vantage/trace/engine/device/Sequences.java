package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

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

    /** One root: a host event named like the operator, at its depth on its thread, and the work launched inside it. */
    private static final class Root {
        final long thread;
        final int depth;
        final String name;
        final long start;
        final long end;
        final List<Integer> work = new ArrayList<>();

        Root(long thread, int depth, String name, long start, long end) {
            this.thread = thread;
            this.depth = depth;
            this.name = name;
            this.start = start;
            this.end = end;
        }
    }

    /** A span of time, and the depth HTA gives what it holds the parent of (-1: nothing). */
    private record Span(long start, long end, long depth) {
    }

    /** The patterns of a rank's trace under an operator. */
    public static Sequences of(int rank, TraceData trace, DeviceWork work, String operator, int minPatternLength) {
        if (operator.isEmpty()) {
            throw new IllegalArgumentException("the operator's name is empty");
        }
        long cut = work.cutNanos();
        Threads threads = Threads.of(trace, cut);
        // the candidates at the depth HTA gives them; a step is at depth 0, its events one below
        List<Root> found = new ArrayList<>();
        threads.steps.forEach((thread, steps) -> {
            for (StepSpan step : steps) {
                if (step.name().contains(operator)) {
                    found.add(new Root(thread, 0, step.name(), step.startNanos(), step.endNanos()));
                }
            }
        });
        for (HostThread t : trace.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size(); i++) {
                int kind = rows.kind(i);
                if ((kind == EventKind.CPU_OP.id() || kind == EventKind.USER_ANNOTATION.id()) && rows.start(i) < cut
                        && trace.name(rows.name(i)).contains(operator)) {
                    found.add(new Root(t.threadId(), threads.depth(t, i), trace.name(rows.name(i)), rows.start(i),
                            rows.end(i)));
                }
            }
        }
        int depth = found.stream().mapToInt(r -> r.depth).min().orElse(0);
        Map<Long, List<Root>> roots = new HashMap<>();
        for (Root r : found) {
            if (r.depth == depth) {
                roots.computeIfAbsent(r.thread, x -> new ArrayList<>()).add(r);
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
            Root r = on == null ? null : holding(on, x -> x.start, x -> x.end, rows.start(call), rows.end(call));
            Span linked = r == null ? threads.linkedTop(thread, rows.start(call), rows.end(call)) : null;
            if (linked != null && roots.containsKey(threads.main)) {
                r = holding(roots.get(threads.main), x -> x.start, x -> x.end, linked.start(), linked.end());
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
        /** Per thread, its steps that began before the cut, in start order. */
        final Map<Long, List<StepSpan>> steps;
        /** The main thread's id, or -1 when there is no pair of threads to link. */
        final long main;
        final long backward;
        /** The backward thread's outermost events, in start order, with their parent's depth or -1 when not linked. */
        final List<Span> tops;

        private Threads(Map<Long, List<StepSpan>> steps, long main, long backward, List<Span> tops) {
            this.steps = steps;
            this.main = main;
            this.backward = backward;
            this.tops = tops;
        }

        static Threads of(TraceData trace, long cut) {
            Map<Long, List<StepSpan>> steps = new HashMap<>();
            trace.steps().stream().filter(s -> s.threadId() != -1 && s.startNanos() < cut)
                    .sorted(Comparator.comparingLong(StepSpan::startNanos))
                    .forEach(s -> steps.computeIfAbsent(s.threadId(), x -> new ArrayList<>()).add(s));
            List<HostThread> backwardThreads = new ArrayList<>();
            for (HostThread t : trace.threads()) {
                HostRows rows = t.rows();
                for (int i = 0; i < rows.size() && !steps.containsKey(t.threadId()); i++) {
                    if (rows.start(i) < cut && trace.name(rows.name(i)).contains("autograd::")) {
                        backwardThreads.add(t);
                        break;
                    }
                }
            }
            if (steps.size() != 1 || backwardThreads.size() != 1) {
                return new Threads(steps, -1, -1, List.of());
            }
            long main = steps.keySet().iterator().next();
            // the parents: the main thread's backward annotations if it has any, else its steps
            List<Span> parents = new ArrayList<>();
            for (HostThread t : trace.threads()) {
                HostRows rows = t.rows();
                for (int i = 0; i < rows.size() && t.threadId() == main; i++) {
                    if (rows.start(i) < cut && trace.name(rows.name(i)).startsWith("## backward ##")) {
                        parents.add(new Span(rows.start(i), rows.end(i),
                                rows.depth(i) + (inside(steps.get(main), rows.start(i)) ? 1 : 0)));
                    }
                }
            }
            if (parents.isEmpty()) {
                steps.get(main).forEach(s -> parents.add(new Span(s.startNanos(), s.endNanos(), 0)));
            }
            List<Span> tops = new ArrayList<>();
            HostRows rows = backwardThreads.get(0).rows();
            for (int i = 0; i < rows.size(); i++) {
                if (rows.depth(i) != 0 || rows.start(i) >= cut) {
                    continue;
                }
                long parentDepth = -1;
                for (Span p : parents) {
                    if (rows.start(i) >= p.start() && rows.end(i) <= p.end()) {
                        parentDepth = p.depth();
                        break;
                    }
                }
                tops.add(new Span(rows.start(i), rows.end(i), parentDepth));
            }
            tops.sort(Comparator.comparingLong(Span::start));
            return new Threads(steps, main, backwardThreads.get(0).threadId(), tops);
        }

        /** Whether a time is inside one of a thread's steps. */
        private static boolean inside(List<StepSpan> steps, long at) {
            return steps != null && steps.stream().anyMatch(s -> at >= s.startNanos() && at < s.endNanos());
        }

        /** The depth HTA gives a host event. */
        int depth(HostThread t, int i) {
            HostRows rows = t.rows();
            if (t.threadId() == backward) {
                Span top = holding(tops, Span::start, Span::end, rows.start(i), rows.end(i));
                return top != null && top.depth() >= 0 ? (int) (rows.depth(i) + top.depth() + 1) : rows.depth(i);
            }
            return rows.depth(i) + (inside(steps.get(t.threadId()), rows.start(i)) ? 1 : 0);
        }

        /** For a call of the backward thread inside an outermost event linked to the main thread: that event. */
        Span linkedTop(long thread, long start, long end) {
            if (thread != backward || backward == -1) {
                return null;
            }
            Span top = holding(tops, Span::start, Span::end, start, end);
            return top != null && top.depth() >= 0 ? top : null;
        }
    }

    /**
     * Of spans sorted by start that do not overlap, the one that holds {@code [start, end]}: the last to start at or
     * before {@code start}, if it ends at or after {@code end}; null for none.
     */
    private static <T> T holding(List<T> spans, ToLongFunction<T> startOf, ToLongFunction<T> endOf, long start,
            long end) {
        int lo = 0;
        int hi = spans.size() - 1;
        T best = null;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (startOf.applyAsLong(spans.get(mid)) <= start) {
                best = spans.get(mid);
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return best != null && end <= endOf.applyAsLong(best) ? best : null;
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
