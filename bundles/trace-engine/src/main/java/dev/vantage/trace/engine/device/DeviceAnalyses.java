package dev.vantage.trace.engine.device;

import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The device analyses of one rank's trace, run together: what several of them need (the trace's device work, its
 * launches, each step's critical path, the GPU figures) is computed once, when the first of them asks for it. This is
 * the one place that runs them: {@code vantage analyze} and {@code report} rank after rank, the board a run at a time
 * (each step's critical path after its first answer). A new analysis is added here and in {@link DeviceTables}.
 *
 * <p>Not thread-safe: one thread at a time, with the trace open.
 */
public final class DeviceAnalyses {

    /** The analyses, as {@code --analysis} names them, in the order their tables print. */
    public static final List<String> NAMES = List.of("temporal", "kernels", "launch", "idle", "queue", "bandwidth",
            "sequences", "critical-path", "gpu", "advice");

    /**
     * What the analyses take from the command line.
     *
     * @param runtimeCutoffUs {@code launch}: a launch call longer than this is an outlier
     * @param launchDelayCutoffUs {@code launch}: a launch delay longer than this is an outlier
     * @param kernelWaitUs {@code idle}: a gap between kernels shorter than this is a kernel wait
     * @param maxQueueLength {@code queue}: the launch queue's length at which a launch blocks
     * @param operator {@code sequences}: the host op (or part of its name) whose kernel sequences are wanted, or null
     * @param minPatternLength {@code sequences}: the shortest sequence counted
     */
    public record Settings(long runtimeCutoffUs, long launchDelayCutoffUs, long kernelWaitUs, int maxQueueLength,
            String operator, int minPatternLength) {

        /** HTA's defaults (CUDA's queue length), and no operator. */
        public static final Settings HTA = new Settings(Launches.RUNTIME_CUTOFF_US, Launches.LAUNCH_DELAY_CUTOFF_US,
                IdleTime.KERNEL_WAIT_US, QueueLength.MAX_QUEUE_LENGTH, null, Sequences.MIN_PATTERN_LENGTH);

        public Settings {
            if (minPatternLength < 1 || operator != null && operator.isEmpty()) {
                throw new IllegalArgumentException("--operator names an op (not empty), and --min-pattern-length is 1"
                        + " or more");
            }
            if (runtimeCutoffUs < 0 || launchDelayCutoffUs < 0 || kernelWaitUs < 0 || maxQueueLength < 1) {
                throw new IllegalArgumentException("the launch cut-offs and the kernel wait are durations in us, not"
                        + " negative, and the queue's length at least 1");
            }
        }

        /** These settings with another operator for {@code sequences}. */
        public Settings withOperator(String name) {
            return new Settings(runtimeCutoffUs, launchDelayCutoffUs, kernelWaitUs, maxQueueLength, name,
                    minPatternLength);
        }
    }

    /** Where a rank's tables go, by the names of {@link DeviceTables}. */
    public interface Sink {

        /** A table's rows of this rank. */
        void rows(String table, List<List<Object>> rows) throws IOException;

        /**
         * A per-event series of this rank (a row per launch, queue change, copy or critical-path edge); {@code rows}
         * makes them, so a sink that keeps no series (the default) never pays for them.
         */
        default void series(String table, Supplier<List<List<Object>>> rows) throws IOException {
        }
    }

    private final int rank;
    private final AnalysedTrace trace;
    private final Settings settings;
    private DeviceWork work;
    private Launches launches;
    private GpuMetrics gpu;
    private List<CriticalPath> paths;

    public DeviceAnalyses(int rank, AnalysedTrace trace, Settings settings) {
        this.rank = rank;
        this.trace = trace;
        this.settings = settings;
    }

    /**
     * Runs the analyses named (names not in {@link #NAMES} are passed over) and hands their tables to the sink in the
     * order of {@link DeviceTables}.
     *
     * @param summary the trace's summary when the caller has it ({@code advice} reads it), else null
     * @param kernels the breakdown across ranks that {@code kernels} adds this rank's device work to; null to have
     *     this rank's {@code kernel_types} and {@code kernels} tables go to the sink
     * @throws IllegalArgumentException if {@code sequences} is asked for without an operator
     */
    public void run(Collection<String> names, TraceSummary summary, KernelBreakdown.Builder kernels, Sink sink)
            throws IOException {
        if (names.contains("temporal")) {
            sink.rows("temporal", List.of(Temporal.of(rank, work()).row()));
        }
        if (names.contains("kernels")) {
            if (kernels != null) {
                kernels.add(rank, work());
            } else {
                for (Map.Entry<String, List<List<Object>>> t : tables(KernelBreakdown.builder().add(rank, work())
                        .build()).entrySet()) {
                    sink.rows(t.getKey(), t.getValue());
                }
            }
        }
        if (names.contains("launch")) {
            sink.rows("launch_summary", List.of(launches().summary(settings.runtimeCutoffUs(),
                    settings.launchDelayCutoffUs())));
            sink.series("launch", launches()::rows);
        }
        if (names.contains("idle")) {
            sink.rows("idle", IdleTime.of(rank, work(), settings.kernelWaitUs() * 1000).table());
        }
        if (names.contains("queue")) {
            QueueLength queues = QueueLength.of(rank, work());
            sink.rows("queue_length_summary", queues.summary(settings.maxQueueLength()));
            sink.series("queue_length", queues::table);
        }
        if (names.contains("bandwidth")) {
            Bandwidth bandwidth = Bandwidth.of(rank, work());
            sink.rows("memory_bw_summary", bandwidth.summary());
            sink.series("memory_bw", bandwidth::table);
        }
        if (names.contains("sequences")) {
            if (settings.operator() == null) {
                throw new IllegalArgumentException("--analysis sequences needs --operator NAME");
            }
            sink.rows("sequences", Sequences.of(rank, trace.data(), work(), settings.operator(),
                    settings.minPatternLength()).table());
        }
        if (names.contains("critical-path")) {
            sink.rows("critical_path_summary", paths().stream().map(CriticalPath::summary).toList());
            sink.series("critical_path", () -> paths().stream().flatMap(p -> p.table().stream()).toList());
        }
        if (names.contains("gpu")) {
            sink.rows("gpu", gpu().table());
        }
        if (names.contains("advice")) {
            sink.rows("advice", Advice.of(rank, trace.data(), summary != null ? summary : trace.summary(""), gpu(),
                    launches(), paths()).table());
        }
    }

    /** A kernel breakdown's two tables by name, in their order: {@code kernel_types}, then {@code kernels}. */
    public static Map<String, List<List<Object>>> tables(KernelBreakdown breakdown) {
        Map<String, List<List<Object>>> tables = new LinkedHashMap<>();
        tables.put("kernel_types", breakdown.types().stream().map(KernelBreakdown.TypeShare::row).toList());
        tables.put("kernels", breakdown.kernels().stream().map(KernelBreakdown.KernelRow::row).toList());
        return tables;
    }

    private DeviceWork work() {
        if (work == null) {
            work = DeviceWork.of(trace.data(), false);
        }
        return work;
    }

    private Launches launches() {
        if (launches == null) {
            launches = Launches.of(rank, work());
        }
        return launches;
    }

    private GpuMetrics gpu() {
        if (gpu == null) {
            gpu = GpuMetrics.of(rank, trace);
        }
        return gpu;
    }

    private List<CriticalPath> paths() {
        if (paths == null) {
            paths = CriticalPath.of(rank, trace.data(), work(), CriticalPath.DEFAULT_ANNOTATION, -1);
        }
        return paths;
    }
}
