package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.vantage.trace.engine.TraceData;

/**
 * The critical path of one step, as HTA's lightweight critical path builds it ({@code
 * CriticalPathAnalysis.critical_path_analysis}, {@code CPGraph.get_critical_path_breakdown}): a graph whose nodes are
 * the starts and ends of the host ops, the runtime calls and the device work launched from the step, and whose edges
 * are an op's or kernel's own time, the nesting and order of ops on a thread (the backward thread's events counted as
 * the forward thread's), the runtime calls that hold CUDA's runtime lock one after the other, the delay from a launch
 * to its kernel when the stream was idle, the gap between two kernels of a stream, the synchronisations, and the
 * blocking calls (a synchronisation's own time does not count). The path is the longest through that graph; each of its edges is
 * attributed to an event and classified: {@code cpu_bound}, {@code gpu_compute_bound}, {@code
 * gpu_communication_bound}, {@code gpu_kernel_kernel_overhead}, {@code gpu_kernel_launch_overhead}.
 *
 * <p>As HTA reads a trace, times are whole microseconds (a start rounded up, an end down), host events of no length
 * are left out, a step's events are the host events that start inside it and the device work whose launch does,
 * and the path's ties fall as networkx's {@code dag_longest_path} breaks them. The synchronisations the device
 * recorded ({@link dev.vantage.trace.engine.DeviceSync}) are followed as HTA follows them: a stream or context sync
 * from the last work of the stream (of every stream) to the end of the call that waited; an event sync from the work
 * launched last, on the event's stream, before the event was recorded; a stream waiting on an event makes the next
 * work launched on it wait for that work.
 *
 * @param rank the rank
 * @param window the annotation instance whose events the path is of ({@code ProfilerStep#3}), or {@code "trace"}
 * @param edges the path's edges, in path order
 * @param failure why the window has no path (its graph has a cycle, or a sync between work of one stream, as HTA's
 *     check refuses them), or null
 */
public record CriticalPath(int rank, String window, List<Edge> edges, String failure) {

    /** HTA's default annotation: one step. */
    public static final String DEFAULT_ANNOTATION = "ProfilerStep";

    /** A gap longer than this between two kernels of a stream is not a kernel-to-kernel delay (HTA's 1.5 ms). */
    public static final long KERNEL_KERNEL_DELAY_THRESHOLD_US = 1500;

    /** The path's columns: HTA's breakdown's, with the rank and the window before them, in path order. */
    public static final List<String> COLUMNS = List.of("rank", "window", "s_name", "duration", "type", "bound_by",
            "ts", "tid", "stream");

    /** The summary's columns: per window, the path's length and its time by what bounds it, microseconds. */
    public static final List<String> SUMMARY_COLUMNS = List.of("rank", "window", "critical_path_us", "cpu_bound",
            "gpu_compute_bound", "gpu_communication_bound", "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead",
            "bound");

    /** An edge's kind, as HTA names it. */
    public enum EdgeType {
        OPERATOR_KERNEL("critical_path_operator"),
        DEPENDENCY("critical_path_dependency"),
        KERNEL_LAUNCH_DELAY("critical_path_kernel_launch_delay"),
        KERNEL_KERNEL_DELAY("critical_path_kernel_kernel_delay"),
        SYNC_DEPENDENCY("critical_path_sync_dependency");

        private final String label;

        EdgeType(String label) {
            this.label = label;
        }

        /** HTA's name. */
        public String label() {
            return label;
        }
    }

    /** What bounds an edge's time, as HTA names it. */
    public enum Bound {
        CPU_BOUND("cpu_bound"),
        GPU_COMPUTE_BOUND("gpu_compute_bound"),
        GPU_COMMUNICATION_BOUND("gpu_communication_bound"),
        GPU_KERNEL_KERNEL_OVERHEAD("gpu_kernel_kernel_overhead"),
        GPU_KERNEL_LAUNCH_OVERHEAD("gpu_kernel_launch_overhead");

        private final String label;

        Bound(String label) {
            this.label = label;
        }

        /** HTA's name. */
        public String label() {
            return label;
        }
    }

    /**
     * One edge of the path.
     *
     * @param event the name of the event it is attributed to, or {@code ""} for a dependency
     * @param durationUs its time, microseconds (HTA's {@code duration}; -1 where rounding put an end before a start)
     * @param type its kind
     * @param bound what bounds it, or null for a dependency (no time)
     * @param startUs when it begins, microseconds on the trace's clock
     * @param thread the attributed event's thread, or -1 for device work and dependencies
     * @param stream the attributed event's stream, or -1 for host events and dependencies
     */
    public record Edge(String event, long durationUs, EdgeType type, Bound bound, long startUs, long thread,
            long stream) {
    }

    /**
     * The critical paths of a rank's trace: one per instance of the annotation (events named with it, {@code
     * ProfilerStep} gives every step HTA counts), or of the whole trace when the default annotation is not in it.
     *
     * @param annotation the annotation's name or part of it
     * @param instance the instance to take (from 0, in start order), or -1 for every one
     */
    public static List<CriticalPath> of(int rank, TraceData trace, DeviceWork work, String annotation, int instance) {
        CriticalPathEvents ev = CriticalPathEvents.of(trace, work);
        List<long[]> windows = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int e = 0; e < ev.size; e++) {
            if ((ev.type[e] == CriticalPathEvents.OP || ev.type[e] == CriticalPathEvents.ANNOTATION) && ev.name[e].contains(annotation)) {
                windows.add(new long[] {ev.ts[e], ev.end[e]});
                names.add(ev.name[e]);
            }
        }
        List<CriticalPath> out = new ArrayList<>();
        if (windows.isEmpty()) {
            if (annotation.equals(DEFAULT_ANNOTATION) && ev.size > 0) {
                long start = Arrays.stream(ev.ts, 0, ev.size).min().getAsLong();
                long end = Arrays.stream(ev.end, 0, ev.size).max().getAsLong();
                out.add(path(rank, "trace", ev, start, end));
            }
            return out;
        }
        // the windows' graphs share only the events, which they read: each is built on a core of its own
        return java.util.stream.IntStream.range(0, windows.size()).filter(i -> instance < 0 || instance == i)
                .parallel().mapToObj(i -> path(rank, names.get(i), ev, windows.get(i)[0], windows.get(i)[1]))
                .toList();
    }

    private static CriticalPath path(int rank, String window, CriticalPathEvents ev, long startUs, long endUs) {
        try {
            return new CriticalPath(rank, window, new CriticalPathGraph(ev, startUs, endUs).path(), null);
        } catch (IllegalStateException e) {
            return new CriticalPath(rank, window, List.of(), e.getMessage());
        }
    }

    /** The path's length, microseconds: the sum of its edges. */
    public long lengthUs() {
        return edges.stream().mapToLong(Edge::durationUs).sum();
    }

    /** The path's time by what bounds it, microseconds. */
    public Map<Bound, Long> byBound() {
        Map<Bound, Long> out = new EnumMap<>(Bound.class);
        for (Bound b : Bound.values()) {
            out.put(b, 0L);
        }
        for (Edge e : edges) {
            if (e.bound() != null) {
                out.merge(e.bound(), e.durationUs(), Long::sum);
            }
        }
        return out;
    }

    /**
     * What the step is bound by: {@code communication} when collectives hold the largest share of the path,
     * {@code device} when device work and the gaps between it do, else {@code cpu} (host ops, and launches that
     * reach an idle device late); {@code no path: ...} when the window has none.
     */
    public String bound() {
        if (failure != null) {
            return "no path: " + failure;
        }
        Map<Bound, Long> b = byBound();
        long cpu = b.get(Bound.CPU_BOUND) + b.get(Bound.GPU_KERNEL_LAUNCH_OVERHEAD);
        long device = b.get(Bound.GPU_COMPUTE_BOUND) + b.get(Bound.GPU_KERNEL_KERNEL_OVERHEAD);
        long communication = b.get(Bound.GPU_COMMUNICATION_BOUND);
        if (communication > cpu && communication > device) {
            return "communication";
        }
        return device > cpu ? "device" : "cpu";
    }

    /** The path as rows of {@link #COLUMNS}. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        for (Edge e : edges) {
            out.add(List.of(rank, window, e.event(), e.durationUs(), e.type().label(),
                    e.bound() == null ? "" : e.bound().label(), e.startUs(), e.thread(), e.stream()));
        }
        return out;
    }

    /** The summary row ({@link #SUMMARY_COLUMNS}). */
    public List<Object> summary() {
        Map<Bound, Long> b = byBound();
        return List.of(rank, window, lengthUs(), b.get(Bound.CPU_BOUND), b.get(Bound.GPU_COMPUTE_BOUND),
                b.get(Bound.GPU_COMMUNICATION_BOUND), b.get(Bound.GPU_KERNEL_KERNEL_OVERHEAD),
                b.get(Bound.GPU_KERNEL_LAUNCH_OVERHEAD), bound());
    }
}
