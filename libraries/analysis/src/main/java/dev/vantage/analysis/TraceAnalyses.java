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
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.SpilledRows;
import dev.vantage.analysis.sql.TraceFolders;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.device.DeviceAnalyses;
import dev.vantage.trace.engine.device.DeviceTables;
import dev.vantage.trace.engine.device.KernelBreakdown;
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
     * {@link DeviceAnalyses#NAMES} (or {@link Query#NAMES}); every name of the kind when none is asked for.
     * {@code sequences} needs an operator: asked for without one it is refused; in every analysis of the traces it runs
     * when one is given.
     */
    static List<String> check(List<String> asked, boolean traces, String operator) {
        List<String> known = traces ? DeviceAnalyses.NAMES : Query.NAMES;
        if (asked.contains("sequences") && operator == null) {
            throw new IllegalArgumentException("--analysis sequences needs --operator NAME");
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
            } else if (!traces && DeviceAnalyses.NAMES.contains(name)) {
                throw new IllegalArgumentException("--analysis " + name + " reads trace files; give the traces"
                        + " (vantage analyze TRACE|DIR...)");
            } else {
                throw new IllegalArgumentException("no analysis '" + name + "'; of trace files: "
                        + String.join(", ", DeviceAnalyses.NAMES) + "; of Parquet trace folders: "
                        + String.join(", ", Query.NAMES));
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
     * Reads the traces one at a time (a trace's columns go before the next is read) and runs the analyses. The job's
     * per-event series are in files until it is closed: close it once its tables are written.
     *
     * @param names the analyses, as {@link #check} returned them
     */
    static Job run(List<Path> traces, List<String> names, DeviceAnalyses.Settings settings, PrintStream err)
            throws IOException {
        Job job = new Job(names, settings, true);
        try {
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
            return job;
        } catch (IOException | RuntimeException | Error e) {
            job.close();
            throw e;
        }
    }

    /**
     * The analyses of one job's traces, taken one rank at a time while each trace is open, so that a verb that reads
     * the traces for its own views ({@code report}) runs them in the same pass. A rank's results are reduced to its
     * rows as it is added: its summary rows stay here (a few per rank), its per-event series ({@code launch},
     * {@code queue_length}, {@code memory_bw}, {@code critical_path}: a row per launch, queue change, copy or path
     * edge) go to a file each ({@link SpilledRows}), so the memory a job holds does not grow with the ranks' events.
     * Not thread-safe.
     */
    static final class Job implements AutoCloseable {
        private final List<String> names;
        private final DeviceAnalyses.Settings settings;
        private final boolean series;
        private final KernelBreakdown.Builder breakdown = KernelBreakdown.builder();
        /** Each summary table's rows, by rank (the tables print rank after rank, whatever order the traces came in). */
        private final Map<String, Map<Integer, List<List<Object>>>> rows = new java.util.HashMap<>();
        private final Map<String, SpilledRows> spilled = new java.util.HashMap<>();
        private Path spillDir;

        /**
         * @param series whether the per-event series are kept ({@code analyze}); without them ({@code report}) only
         *     the summary tables are made
         */
        Job(List<String> names, DeviceAnalyses.Settings settings, boolean series) {
            this.names = List.copyOf(names);
            this.settings = settings;
            this.series = series;
        }

        /** Every analysis with HTA's defaults, their summaries only (what {@code report} shows). */
        static Job withDefaults() {
            return new Job(DeviceAnalyses.NAMES.stream().filter(n -> !n.equals("sequences")).toList(),
                    DeviceAnalyses.Settings.HTA, false);
        }

        /** Adds a rank's trace, which is open for the call. */
        void add(int rank, AnalysedTrace trace) throws IOException {
            add(rank, trace, null);
        }

        /** Adds a rank's trace, with its summary when the caller has it already (else it is computed if needed). */
        void add(int rank, AnalysedTrace trace, TraceSummary summary) throws IOException {
            new DeviceAnalyses(rank, trace, settings).run(names, summary, breakdown, new DeviceAnalyses.Sink() {
                @Override
                public void rows(String table, List<List<Object>> tableRows) {
                    put(table, rank, tableRows);
                }

                @Override
                public void series(String table, Supplier<List<List<Object>>> tableRows) throws IOException {
                    spill(table, rank, tableRows);
                }
            });
        }

        private void put(String table, int rank, List<List<Object>> tableRows) {
            rows.computeIfAbsent(table, t -> new TreeMap<>()).computeIfAbsent(rank, r -> new ArrayList<>())
                    .addAll(tableRows);
        }

        /** Writes a rank's series to its table's file, when the job keeps series; the rows are made only then. */
        private void spill(String table, int rank, Supplier<List<List<Object>>> tableRows)
                throws IOException {
            if (!series) {
                return;
            }
            SpilledRows file = spilled.get(table);
            if (file == null) {
                if (spillDir == null) {
                    spillDir = Files.createTempDirectory("vantage-analyze-");
                }
                file = new SpilledRows(spillDir.resolve(table + ".rows"), DeviceTables.columns(table).size());
                spilled.put(table, file);
            }
            file.append(rank, tableRows.get());
        }

        /**
         * The tables the analyses asked for gave, in the order of {@link DeviceTables}: each summary every rank's rows,
         * rank after rank; a series only while the job is open.
         */
        List<ResultTable> tables() {
            Map<String, List<List<Object>>> kernels = names.contains("kernels")
                    ? DeviceAnalyses.tables(breakdown.build()) : Map.of();
            List<ResultTable> results = new ArrayList<>();
            for (String name : DeviceTables.names()) {
                List<List<Object>> tableRows;
                if (kernels.containsKey(name)) {
                    tableRows = kernels.get(name);
                } else if (rows.containsKey(name)) {
                    tableRows = new ArrayList<>();
                    rows.get(name).values().forEach(tableRows::addAll);
                } else if (spilled.containsKey(name)) {
                    tableRows = spilled.get(name);
                } else {
                    continue;
                }
                results.add(new ResultTable(name, DeviceTables.columns(name), tableRows));
            }
            return results;
        }

        /** The folder of the series' files, null before the first is made. */
        Path spillDir() {
            return spillDir;
        }

        /** Deletes the series' files. */
        @Override
        public void close() throws IOException {
            IOException failed = null;
            for (SpilledRows file : spilled.values()) {
                try {
                    file.close();
                } catch (IOException e) {
                    failed = failed == null ? e : failed;
                }
            }
            spilled.clear();
            if (spillDir != null) {
                Files.deleteIfExists(spillDir);
                spillDir = null;
            }
            if (failed != null) {
                throw failed;
            }
        }
    }
}
