package dev.vantage.analysis;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.TraceFolders;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.device.Advice;
import dev.vantage.trace.engine.device.Bandwidth;
import dev.vantage.trace.engine.device.CriticalPath;
import dev.vantage.trace.engine.device.DeviceWork;
import dev.vantage.trace.engine.device.GpuMetrics;
import dev.vantage.trace.engine.device.IdleTime;
import dev.vantage.trace.engine.device.KernelBreakdown;
import dev.vantage.trace.engine.device.Launches;
import dev.vantage.trace.engine.device.QueueLength;
import dev.vantage.trace.engine.device.Sequences;
import dev.vantage.trace.engine.device.Temporal;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * {@code vantage analyze TRACE|DIR... [--analysis NAME[,NAME...]]}: the trace engine's device analyses over trace
 * files and folders of rank traces, read directly (no conversion first). Each trace is one rank: {@code
 * distributedInfo}'s rank, else the number after {@code rank} or {@code worker} in its name, else its position.
 * Results carry HTA's table and column names ({@code temporal}: {@code get_temporal_breakdown}; {@code kernel_types}
 * and {@code kernels}: {@code get_gpu_kernel_breakdown}; {@code launch}: {@code get_cuda_kernel_launch_stats}, with
 * {@code launch_summary} counting what its charts show; {@code idle}: {@code get_idle_time_breakdown} for every rank;
 * {@code queue_length} and {@code queue_length_summary}: {@code get_queue_length_time_series} and {@code
 * get_queue_length_summary}, with the time at a full queue; {@code memory_bw} and {@code memory_bw_summary}:
 * {@code get_memory_bw_time_series} and {@code get_memory_bw_summary}; {@code sequences}: {@code
 * get_frequent_cuda_kernel_sequences} under {@code --operator}; {@code critical_path_summary} and {@code
 * critical_path}: {@code critical_path_analysis} of every step, summed by {@code bound_by} and edge by edge; {@code
 * advice}: the TensorBoard plugin's recommendations and the analyses' own, with the figures that fired them; {@code gpu}: the TensorBoard plugin's GPU utilization, SM
 * efficiency and achieved occupancy), times in microseconds as HTA gives them.
 */
final class TraceAnalyses {

    /** The analyses of trace files, as {@code --analysis} names them. */
    static final List<String> NAMES = List.of("temporal", "kernels", "launch", "idle", "queue", "bandwidth", "sequences",
            "critical-path", "gpu", "advice");

    private TraceAnalyses() {
    }

    /**
     * Returns whether the inputs are traces rather than one directory of Parquet trace folders: a file, more than one
     * input, or one directory that holds trace files of its own and no Parquet trace folder at any depth.
     */
    static boolean areTraces(List<Path> inputs) {
        if (inputs.size() != 1 || !Files.isDirectory(inputs.get(0))) {
            return true;
        }
        Path dir = inputs.get(0);
        try (Stream<Path> folders = Files.walk(dir); Stream<Path> files = Files.list(dir)) {
            return folders.noneMatch(f -> Files.isDirectory(f) && f.getFileName().toString().endsWith(TraceFolders.SUFFIX))
                    && files.anyMatch(f -> Files.isRegularFile(f) && TraceReader.isTraceName(f.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks the names asked for against the inputs' kind, before anything is read, and returns them in the order of
     * {@link #NAMES} (or {@link Query#NAMES}); every name of the kind when none is asked for. {@code sequences} needs an
     * operator: asked for without one it is refused; in every analysis of the traces it runs when one is given.
     */
    static List<String> check(List<String> asked, boolean traces, String operator) {
        List<String> known = traces ? NAMES : Query.NAMES;
        if (asked.contains("sequences") && operator == null) {
            throw new IllegalArgumentException("--analysis sequences needs --operator NAME");
        }
        if (!traces && operator != null) {
            throw new IllegalArgumentException("--operator is for sequences, an analysis of trace files");
        }
        if (asked.isEmpty()) {
            return known.stream().filter(n -> operator != null || !n.equals("sequences")).toList();
        }
        Set<String> wanted = new LinkedHashSet<>();
        for (String name : asked) {
            if (known.contains(name)) {
                wanted.add(name);
            } else if (traces && Query.NAMES.contains(name)) {
                throw new IllegalArgumentException("--analysis " + name + " runs on Parquet trace folders: convert the"
                        + " traces first (vantage convert TRACE... -o DIR), then vantage analyze DIR");
            } else if (!traces && NAMES.contains(name)) {
                throw new IllegalArgumentException("--analysis " + name + " reads trace files; give the traces"
                        + " (vantage analyze TRACE|DIR...)");
            } else {
                throw new IllegalArgumentException("no analysis '" + name + "'; of trace files: "
                        + String.join(", ", NAMES) + "; of Parquet trace folders: " + String.join(", ", Query.NAMES));
            }
        }
        return known.stream().filter(wanted::contains).toList();
    }

    /** The trace files of the inputs, each checked before any is read; a directory's own, not its subdirectories'. */
    static List<Path> traces(List<Path> inputs) {
        List<Path> traces = new ArrayList<>();
        for (Path in : inputs) {
            if (Files.isDirectory(in)) {
                List<Path> found = ConvertCommand.traces(in);
                if (found.isEmpty()) {
                    throw new IllegalArgumentException("directory '" + in
                            + "' holds no *.json, *.pftrace or their .gz trace");
                }
                traces.addAll(found);
            } else if (Files.isRegularFile(in) && Files.isReadable(in)) {
                traces.add(in);
            } else {
                throw new IllegalArgumentException("'" + in + "' is not a readable file or directory");
            }
        }
        return traces;
    }

    /**
     * Reads the traces one at a time (a trace's columns go before the next is read) and runs the analyses.
     *
     * @param names the analyses, as {@link #check} returned them
     */
    static List<ResultTable> run(List<Path> traces, List<String> names, long runtimeCutoffUs, long launchDelayCutoffUs,
            long kernelWaitUs, int maxQueueLength, String operator, int minPatternLength, PrintStream err)
            throws IOException {
        Job job = new Job(names, runtimeCutoffUs, launchDelayCutoffUs, kernelWaitUs, maxQueueLength, operator,
                minPatternLength);
        Map<Integer, Path> byRank = new TreeMap<>();
        for (int i = 0; i < traces.size(); i++) {
            Path p = traces.get(i);
            try (AnalysedTrace trace = TraceInputs.open(p, false, err)) {
                int rank = trace.rank() >= 0 ? trace.rank() : ConvertCommand.rankInName(p, i);
                Path other = byRank.putIfAbsent(rank, p);
                if (other != null) {
                    throw new IllegalArgumentException("two traces are rank " + rank + " (" + other.getFileName()
                            + ", " + p.getFileName() + "): give the traces of one run");
                }
                job.add(rank, trace);
            }
        }
        return job.tables();
    }

    /**
     * The analyses of one job's traces, taken one rank at a time while each trace is open, so that a verb that reads
     * the traces for its own views ({@code report}) runs them in the same pass. Not thread-safe.
     */
    static final class Job {
        private final List<String> names;
        private final long runtimeCutoffUs;
        private final long launchDelayCutoffUs;
        private final long kernelWaitUs;
        private final int maxQueueLength;
        private final Map<Integer, List<Object>> temporal = new TreeMap<>();
        private final KernelBreakdown.Builder breakdown = KernelBreakdown.builder();
        private final Map<Integer, Launches> launches = new TreeMap<>();
        private final Map<Integer, IdleTime> idle = new TreeMap<>();
        private final Map<Integer, QueueLength> queues = new TreeMap<>();
        private final Map<Integer, Bandwidth> bandwidths = new TreeMap<>();
        private final Map<Integer, GpuMetrics> gpus = new TreeMap<>();
        private final Map<Integer, Sequences> sequences = new TreeMap<>();
        private final Map<Integer, List<CriticalPath>> criticalPaths = new TreeMap<>();
        private final Map<Integer, Advice> advice = new TreeMap<>();
        private final String operator;
        private final int minPatternLength;

        Job(List<String> names, long runtimeCutoffUs, long launchDelayCutoffUs, long kernelWaitUs, int maxQueueLength,
                String operator, int minPatternLength) {
            this.names = List.copyOf(names);
            this.operator = operator;
            this.minPatternLength = minPatternLength;
            this.runtimeCutoffUs = runtimeCutoffUs;
            this.launchDelayCutoffUs = launchDelayCutoffUs;
            this.kernelWaitUs = kernelWaitUs;
            this.maxQueueLength = maxQueueLength;
        }

        /** Every analysis with HTA's defaults. */
        static Job withDefaults() {
            return new Job(NAMES.stream().filter(n -> !n.equals("sequences")).toList(), Launches.RUNTIME_CUTOFF_US,
                    Launches.LAUNCH_DELAY_CUTOFF_US, IdleTime.KERNEL_WAIT_US, QueueLength.MAX_QUEUE_LENGTH, null,
                    Sequences.MIN_PATTERN_LENGTH);
        }

        /** Adds a rank's trace, which is open for the call. */
        void add(int rank, AnalysedTrace trace) {
            add(rank, trace, null);
        }

        /** Adds a rank's trace, with its summary when the caller has it already (else it is computed if needed). */
        void add(int rank, AnalysedTrace trace, TraceSummary summary) {
            DeviceWork work = DeviceWork.of(trace.data(), false);
            if (names.contains("temporal")) {
                temporal.put(rank, Temporal.of(rank, work).row());
            }
            if (names.contains("kernels")) {
                breakdown.add(rank, work);
            }
            if (names.contains("launch")) {
                launches.put(rank, Launches.of(rank, work));
            }
            if (names.contains("idle")) {
                idle.put(rank, IdleTime.of(rank, work, kernelWaitUs * 1000));
            }
            if (names.contains("queue")) {
                queues.put(rank, QueueLength.of(rank, work));
            }
            if (names.contains("bandwidth")) {
                bandwidths.put(rank, Bandwidth.of(rank, work));
            }
            if (names.contains("sequences")) {
                sequences.put(rank, Sequences.of(rank, trace.data(), work, operator, minPatternLength));
            }
            List<CriticalPath> paths = names.contains("critical-path") || names.contains("advice")
                    ? CriticalPath.of(rank, trace.data(), work, CriticalPath.DEFAULT_ANNOTATION, -1) : null;
            if (names.contains("critical-path")) {
                criticalPaths.put(rank, paths);
            }
            GpuMetrics gpu = names.contains("gpu") || names.contains("advice") ? GpuMetrics.of(rank, trace) : null;
            if (names.contains("gpu")) {
                gpus.put(rank, gpu);
            }
            if (names.contains("advice")) {
                Launches l = launches.containsKey(rank) ? launches.get(rank) : Launches.of(rank, work);
                advice.put(rank, Advice.of(rank, trace.data(), summary != null ? summary : trace.summary(""), gpu, l,
                        paths));
            }
        }

        /** The tables of the analyses asked for, in the order of {@link #NAMES}. */
        List<ResultTable> tables() {
            List<ResultTable> results = new ArrayList<>();
            if (names.contains("temporal")) {
                results.add(new ResultTable("temporal", Temporal.COLUMNS, new ArrayList<>(temporal.values())));
            }
            if (names.contains("kernels")) {
                KernelBreakdown b = breakdown.build();
                results.add(new ResultTable("kernel_types", KernelBreakdown.TYPE_COLUMNS,
                        b.types().stream().map(KernelBreakdown.TypeShare::row).toList()));
                results.add(new ResultTable("kernels", KernelBreakdown.KERNEL_COLUMNS,
                        b.kernels().stream().map(KernelBreakdown.KernelRow::row).toList()));
            }
            if (names.contains("launch")) {
                results.add(new ResultTable("launch_summary", Launches.SUMMARY_COLUMNS, launches.values().stream()
                        .map(l -> l.summary(runtimeCutoffUs, launchDelayCutoffUs)).toList()));
                results.add(new ResultTable("launch", Launches.COLUMNS, series(launches, Launches::rows,
                        l -> l.launches().size())));
            }
            if (names.contains("idle")) {
                results.add(new ResultTable("idle", IdleTime.COLUMNS, rows(idle, IdleTime::table)));
            }
            if (names.contains("queue")) {
                results.add(new ResultTable("queue_length_summary", QueueLength.SUMMARY_COLUMNS,
                        rows(queues, q -> q.summary(maxQueueLength))));
                results.add(new ResultTable("queue_length", QueueLength.COLUMNS, series(queues, QueueLength::table,
                        q -> q.streams().values().stream().mapToInt(x -> x.times().length).sum())));
            }
            if (names.contains("bandwidth")) {
                results.add(new ResultTable("memory_bw_summary", Bandwidth.SUMMARY_COLUMNS,
                        rows(bandwidths, Bandwidth::summary)));
                results.add(new ResultTable("memory_bw", Bandwidth.COLUMNS, series(bandwidths, Bandwidth::table,
                        b -> b.kinds().values().stream().mapToInt(x -> x.times().length).sum())));
            }
            if (names.contains("sequences")) {
                results.add(new ResultTable("sequences", Sequences.COLUMNS, rows(sequences, Sequences::table)));
            }
            if (names.contains("critical-path")) {
                results.add(new ResultTable("critical_path_summary", CriticalPath.SUMMARY_COLUMNS,
                        rows(criticalPaths, paths -> paths.stream().map(CriticalPath::summary).toList())));
                results.add(new ResultTable("critical_path", CriticalPath.COLUMNS, series(criticalPaths,
                        paths -> paths.stream().flatMap(p -> p.table().stream()).toList(),
                        paths -> paths.stream().mapToInt(p -> p.edges().size()).sum())));
            }
            if (names.contains("gpu")) {
                results.add(new ResultTable("gpu", GpuMetrics.COLUMNS, rows(gpus, GpuMetrics::table)));
            }
            if (names.contains("advice")) {
                results.add(new ResultTable("advice", Advice.COLUMNS, rows(advice, Advice::table)));
            }
            return results;
        }

        /** Every rank's rows of one table, rank after rank. */
        private static <T> List<List<Object>> rows(Map<Integer, T> byRank, Function<T, List<List<Object>>> table) {
            List<List<Object>> out = new ArrayList<>();
            byRank.values().forEach(t -> out.addAll(table.apply(t)));
            return out;
        }

        /**
         * Every rank's rows of a per-event series, made one rank at a time as they are written: the ranks keep their
         * compact results (arrays, records), and only one rank's rows exist at once.
         */
        private static <T> List<List<Object>> series(Map<Integer, T> byRank, Function<T, List<List<Object>>> table,
                java.util.function.ToIntFunction<T> count) {
            return new RankRows<>(new ArrayList<>(byRank.values()), table, count);
        }
    }

    /** A per-event series of every rank, each rank's rows made when the first of them is read. */
    static final class RankRows<T> extends ResultTable.Produced {
        private final List<T> ranks;
        private final Function<T, List<List<Object>>> table;
        private final long[] starts;
        private int current = -1;
        private List<List<Object>> rows = List.of();

        RankRows(List<T> ranks, Function<T, List<List<Object>>> table, java.util.function.ToIntFunction<T> count) {
            this.ranks = ranks;
            this.table = table;
            this.starts = new long[ranks.size() + 1];
            for (int r = 0; r < ranks.size(); r++) {
                starts[r + 1] = starts[r] + count.applyAsInt(ranks.get(r));
            }
        }

        @Override
        public List<Object> get(int index) {
            if (index < 0 || index >= size()) {
                throw new IndexOutOfBoundsException(index);
            }
            if (current < 0 || index < starts[current] || index >= starts[current + 1]) {
                int r = java.util.Arrays.binarySearch(starts, index);
                // the rank whose rows begin at or before the index (a rank of no rows shares its start)
                r = r >= 0 ? r : -r - 2;
                while (starts[r + 1] <= index) {
                    r++;
                }
                current = r;
                rows = table.apply(ranks.get(r));
                if (rows.size() != starts[r + 1] - starts[r]) {
                    throw new IllegalStateException("rank " + r + " made " + rows.size() + " rows, counted "
                            + (starts[r + 1] - starts[r]));
                }
            }
            return rows.get((int) (index - starts[current]));
        }

        @Override
        public int size() {
            return (int) starts[starts.length - 1];
        }
    }
}
