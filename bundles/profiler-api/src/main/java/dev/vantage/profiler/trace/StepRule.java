package dev.vantage.profiler.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The one rule for which step an event belongs to, used by the profiler core, every exporter and the analysis
 * library, so that every view of one run gives the same per-step figures:
 * <ul>
 * <li>a host event belongs to the step whose {@code ProfilerStep#N} span {@code [start, end)} holds its start;</li>
 * <li>device work belongs to the step of the op that launched it (the span holding the launching op's start), as
 *     the TensorBoard plugin and HTA attribute kernels through their launch; work whose launch is unknown belongs
 *     to the step whose span holds its own start;</li>
 * <li>anything else belongs to no step.</li>
 * </ul>
 * A step's time then runs from its start to the later of its span's end and the end of the device work attributed
 * to it ({@link TraceStep#durationNanos()}). Build one with {@link #of}, feed it the device work with
 * {@link #attribute}, and read the steps with {@link #steps()}. Not thread-safe.
 */
public final class StepRule {

    private final long[] numbers;
    private final long[] starts;
    private final long[] ends;
    private final long[] deviceEnds;

    private StepRule(long[] numbers, long[] starts, long[] ends) {
        this.numbers = numbers;
        this.starts = starts;
        this.ends = ends;
        this.deviceEnds = starts.clone();
    }

    /**
     * Returns the rule over step spans; the device work of each starts empty.
     *
     * @param spans the steps, in any order; their {@code deviceEndEpochNanos} is ignored
     */
    public static StepRule of(List<TraceStep> spans) {
        List<TraceStep> sorted = new ArrayList<>(spans);
        sorted.sort((a, b) -> Long.compare(a.startEpochNanos(), b.startEpochNanos()));
        int n = sorted.size();
        long[] numbers = new long[n];
        long[] starts = new long[n];
        long[] ends = new long[n];
        for (int i = 0; i < n; i++) {
            TraceStep s = sorted.get(i);
            numbers[i] = s.number();
            starts[i] = s.startEpochNanos();
            ends[i] = s.endEpochNanos();
        }
        return new StepRule(numbers, starts, ends);
    }

    /** Returns how many steps there are. */
    public int size() {
        return numbers.length;
    }

    /**
     * Returns the index (in start order) of the step whose span holds a time, or -1 when none does. Spans do not
     * overlap (they are one thread's); of spans that touch, the later one holds the shared instant.
     */
    public int indexAt(long epochNanos) {
        int k = Arrays.binarySearch(starts, epochNanos);
        if (k < 0) {
            k = -k - 2;
        } else {
            while (k + 1 < starts.length && starts[k + 1] == epochNanos) {
                k++;
            }
        }
        return k >= 0 && epochNanos < ends[k] ? k : -1;
    }

    /**
     * Returns the index of the step an event belongs to, or -1.
     *
     * @param startEpochNanos the event's start
     * @param launchEpochNanos for device work, the start of the op that launched it, or -1 when unknown (and for
     *     host events)
     */
    public int indexOf(long startEpochNanos, long launchEpochNanos) {
        return indexAt(launchEpochNanos >= 0 ? launchEpochNanos : startEpochNanos);
    }

    /** Returns the step number ({@code N} of {@code ProfilerStep#N}) at an index. */
    public long number(int index) {
        return numbers[index];
    }

    /**
     * Attributes one piece of device work to its step, whose time then lasts at least until the work's end.
     *
     * @return the step's index, or -1 when it belongs to none
     */
    public int attribute(long startEpochNanos, long launchEpochNanos, long endEpochNanos) {
        int i = indexOf(startEpochNanos, launchEpochNanos);
        if (i >= 0 && endEpochNanos > deviceEnds[i]) {
            deviceEnds[i] = endEpochNanos;
        }
        return i;
    }

    /** Returns the steps in start order, with the end of the device work attributed so far. */
    public List<TraceStep> steps() {
        List<TraceStep> out = new ArrayList<>(numbers.length);
        for (int i = 0; i < numbers.length; i++) {
            out.add(new TraceStep(numbers[i], starts[i], ends[i], deviceEnds[i]));
        }
        return List.copyOf(out);
    }

    /**
     * Returns the steps of a trace by reading its events once: the {@code ProfilerStep#N} annotations, then its
     * device work attributed by this rule. For {@link Trace} implementations without steps of their own.
     */
    public static List<TraceStep> read(Trace trace) {
        List<TraceStep> spans = new ArrayList<>();
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.kind() == EventKind.USER_ANNOTATION) {
                long n = stepNumber(c.name());
                if (n >= 0) {
                    spans.add(new TraceStep(n, c.startEpochNanos(), c.startEpochNanos() + c.durationNanos(),
                            c.startEpochNanos()));
                }
            }
        }
        StepRule rule = of(spans);
        if (rule.size() > 0) {
            c = trace.events();
            while (c.next()) {
                if (c.kind().isDeviceWork()) {
                    rule.attribute(c.startEpochNanos(), c.launchEpochNanos(), c.startEpochNanos() + c.durationNanos());
                }
            }
        }
        return rule.steps();
    }

    /** The prefix of torch's step annotations. */
    public static final String STEP_PREFIX = "ProfilerStep#";

    /**
     * Returns N of a {@code ProfilerStep#N} name (N a non-negative whole number that fits a {@code long}), or -1 for
     * any other name.
     */
    public static long stepNumber(String name) {
        int p = STEP_PREFIX.length();
        if (!name.startsWith(STEP_PREFIX) || name.length() == p || name.length() > p + 18) {
            return -1;
        }
        long n = 0;
        for (int i = p; i < name.length(); i++) {
            char ch = name.charAt(i);
            if (ch < '0' || ch > '9') {
                return -1;
            }
            n = n * 10 + (ch - '0');
        }
        return n;
    }
}
