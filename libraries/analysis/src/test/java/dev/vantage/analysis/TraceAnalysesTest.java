package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code vantage analyze TRACE|DIR... --analysis ...} on a real two-rank PyTorch job (HTA's test data, from the trace
 * engine's test jar, provenance beside it): tables and columns as HTA names them, HTA's figures, every name checked
 * before any trace is read.
 */
public class TraceAnalysesTest {

    private static final String HTA = "/dev/vantage/trace/engine/device/hta/";
    private static final ObjectMapper JSON = new ObjectMapper();

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Path job;

    @BeforeClass
    public static void copyTheJob() throws IOException {
        job = tmp.newFolder("job").toPath();
        for (String rank : List.of("sampled_rank-0.json.gz", "sampled_rank-1.json.gz")) {
            try (InputStream in = TraceAnalysesTest.class.getResourceAsStream(HTA + "trace_filter/" + rank)) {
                Files.copy(in, job.resolve(rank));
            }
        }
    }

    /** The blocks of the CSV output ({@code # name}, then the table), each parsed by Commons CSV. */
    private static Map<String, List<CSVRecord>> blocks(String csv) throws IOException {
        Map<String, List<CSVRecord>> blocks = new LinkedHashMap<>();
        for (String block : csv.split("\\R\\R")) {
            String[] lines = block.split("\\R", 2);
            assertTrue(lines[0], lines[0].startsWith("# "));
            try (CSVParser p = CSVParser.parse(new StringReader(lines[1]), CSVFormat.DEFAULT)) {
                blocks.put(lines[0].substring(2), new ArrayList<>(p.getRecords()));
            }
        }
        return blocks;
    }

    @Test
    public void aFolderOfRankTracesGivesHtasTablesWithHtasColumnsAndFigures() throws IOException {
        VerbRun r = VerbRun.verb("analyze", job.toString(), "--format", "csv");
        assertEquals(r.err(), 0, r.code());
        Map<String, List<CSVRecord>> blocks = blocks(r.out().strip());
        assertEquals(List.of("temporal", "kernel_types", "kernels", "launch_summary", "launch", "idle",
                "queue_length_summary", "queue_length", "memory_bw_summary", "memory_bw", "critical_path_summary",
                "critical_path", "gpu", "advice"),
                List.copyOf(blocks.keySet()));
        assertEquals(List.of("rank", "device", "gpu_utilization", "sm_efficiency", "achieved_occupancy",
                "tensor_core_pct", "span_us"), blocks.get("gpu").get(0).toList());
        assertEquals(3, blocks.get("gpu").size());
        JsonNode hta;
        try (InputStream in = TraceAnalysesTest.class.getResourceAsStream(HTA + "trace_filter.hta.json")) {
            hta = JSON.readTree(in);
        }
        // HTA's DataFrame columns, in HTA's order
        List<CSVRecord> temporal = blocks.get("temporal");
        assertEquals(List.of("rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)",
                "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"), temporal.get(0).toList());
        assertEquals(List.of("kernel_type", "sum", "percentage"), blocks.get("kernel_types").get(0).toList());
        assertEquals(List.of("name", "sum (us)", "max (us)", "min (us)", "stddev", "mean (us)", "kernel_type", "rank",
                "count"), blocks.get("kernels").get(0).toList());
        // HTA's figures: the ranks' temporal breakdowns to the microsecond, one row per HTA kernel row
        assertEquals(3, temporal.size());
        List<String> header = temporal.get(0).toList();
        for (int i = 0; i < 2; i++) {
            JsonNode h = hta.get("temporal").get(i);
            CSVRecord row = temporal.get(1 + i);
            assertEquals(h.get("rank").asText(), row.get(0));
            for (String column : header.subList(1, header.size())) {
                assertEquals(column, h.get(column).asDouble(), Double.parseDouble(row.get(header.indexOf(column))),
                        0.0);
            }
        }
        assertEquals(List.of("rank", "correlation", "cpu_duration", "gpu_duration", "launch_delay"),
                blocks.get("launch").get(0).toList());
        assertEquals(hta.get("launch").get("0").size() + hta.get("launch").get("1").size() + 1,
                blocks.get("launch").size());
        assertEquals(hta.get("kernels").size() + 1, blocks.get("kernels").size());
        assertEquals(List.of("rank", "stream", "idle_category", "idle_time", "idle_time_ratio"),
                blocks.get("idle").get(0).toList());
        assertEquals(hta.get("idle").get("0").size() + hta.get("idle").get("1").size() + 1, blocks.get("idle").size());
        assertEquals(List.of("rank", "stream", "count", "mean", "std", "min", "25%", "50%", "75%", "max",
                "duration_at_max_queue_length", "relative_duration_at_max_queue_length"),
                blocks.get("queue_length_summary").get(0).toList());
        assertEquals(hta.get("queue_length_summary").size() + 1, blocks.get("queue_length_summary").size());
        assertEquals(hta.get("queue_length").get("0").size() + hta.get("queue_length").get("1").size() + 1,
                blocks.get("queue_length").size());
        assertEquals(List.of("rank", "ts", "pid", "name", "memory_bw_gbps"), blocks.get("memory_bw").get(0).toList());
        assertEquals(hta.get("memory_bw").get("0").size() + hta.get("memory_bw").get("1").size() + 1,
                blocks.get("memory_bw").size());
        assertEquals(List.of("rank", "name", "count", "mean", "std", "min", "25%", "50%", "75%", "max"),
                blocks.get("memory_bw_summary").get(0).toList());
        assertEquals(hta.get("memory_bw_summary").size() + 1, blocks.get("memory_bw_summary").size());
        // a stream of one kernel has no gap: HTA's ratio is NaN, here an empty field
        assertTrue(blocks.get("idle").stream().anyMatch(row -> row.get(4).isEmpty()));
        assertEquals(hta.get("kernel_types").size() + 1, blocks.get("kernel_types").size());
    }

    /**
     * The issue's command on HTA's nanosecond trace: {@code analyze TRACE --analysis idle,launch,queue,critical-path
     * --format csv} gives HTA's critical path of each of its four steps (length and time by bound, from HTA's own run
     * beside the trace) and HTA's idle time, each table read back by Commons CSV.
     */
    @Test
    public void theCriticalPathOfEachStepAndTheIdleTimeOfANanosecondTraceAreHtas() throws IOException {
        Path trace = tmp.newFolder("ns").toPath().resolve("rank-0.pt.trace.json.gz");
        try (InputStream in = TraceAnalysesTest.class.getResourceAsStream(HTA
                + "ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")) {
            Files.copy(in, trace);
        }
        VerbRun r = VerbRun.verb("analyze", trace.toString(), "--analysis", "idle,launch,queue,critical-path",
                "--format", "csv");
        assertEquals(r.err(), 0, r.code());
        Map<String, List<CSVRecord>> blocks = blocks(r.out().strip());
        assertEquals(List.of("launch_summary", "launch", "idle", "queue_length_summary", "queue_length",
                "critical_path_summary", "critical_path"), new ArrayList<>(blocks.keySet()));
        JsonNode paths;
        JsonNode figures;
        try (InputStream in = TraceAnalysesTest.class.getResourceAsStream(HTA + "ns_resolution.critical_path.json");
                InputStream f = TraceAnalysesTest.class.getResourceAsStream(HTA + "ns_resolution.hta.json")) {
            paths = JSON.readTree(in).get("0");
            figures = JSON.readTree(f);
        }
        List<CSVRecord> summary = blocks.get("critical_path_summary");
        assertEquals(List.of("rank", "window", "critical_path_us", "cpu_bound", "gpu_compute_bound",
                "gpu_communication_bound", "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead", "bound"),
                summary.get(0).toList());
        assertEquals(1 + paths.size(), summary.size());
        long edges = 0;
        for (int i = 0; i < paths.size(); i++) {
            CSVRecord row = summary.get(1 + i);
            JsonNode hta = paths.get(i);
            assertEquals(hta.get("length").asLong(), Long.parseLong(row.get(2)));
            assertEquals(hta.get("by_bound").path("cpu_bound").asLong(0), Long.parseLong(row.get(3)));
            assertEquals(hta.get("by_bound").path("gpu_compute_bound").asLong(0), Long.parseLong(row.get(4)));
            assertEquals(hta.get("by_bound").path("gpu_kernel_kernel_overhead").asLong(0), Long.parseLong(row.get(6)));
            assertEquals("device", row.get(8));
            edges += hta.get("edges").asLong();
        }
        assertEquals(1 + edges, blocks.get("critical_path").size());
        // HTA's idle time per stream and category, in whole microseconds
        Map<String, Double> idle = new LinkedHashMap<>();
        for (CSVRecord row : blocks.get("idle").subList(1, blocks.get("idle").size())) {
            idle.put(row.get(1) + "|" + row.get(2), Double.parseDouble(row.get(3)));
        }
        JsonNode htaIdle = figures.get("idle").get("0");
        assertTrue(htaIdle.size() > 0);
        for (JsonNode row : htaIdle) {
            String key = row.get("stream").asText() + "|" + row.get("idle_category").asText();
            assertEquals(key, row.get("idle_time").asDouble(), idle.get(key), 0.0);
        }
    }

    /** {@code sequences} runs with an operator, on every rank, with HTA's columns; without one it is refused. */
    /**
     * The command tree spells the defaults for its help (it depends on no engine); a command line without the flags
     * must give the engine's, HTA's, which the board and {@code report} use.
     */
    @Test
    public void theCommandLinesDefaultsAreTheEnginesHtaSettings() throws Exception {
        dev.vantage.cli.ParsedCommand parsed = dev.vantage.cli.Cli.parse(List.of("analyze", job.toString()), Map.of());
        assertEquals(dev.vantage.trace.engine.device.DeviceAnalyses.Settings.HTA,
                Tools.settings((dev.vantage.cli.AnalysisCommand.Analyze) parsed.options()));
        parsed = dev.vantage.cli.Cli.parse(List.of("analyze", job.toString(), "--kernel-wait", "7", "--operator",
                "mm", "--min-pattern-length", "2"), Map.of());
        assertEquals(dev.vantage.trace.engine.device.DeviceAnalyses.Settings.HTA.withOperator("mm"),
                new dev.vantage.trace.engine.device.DeviceAnalyses.Settings(50, 100, 30, 1024, "mm", 3));
        dev.vantage.trace.engine.device.DeviceAnalyses.Settings given =
                Tools.settings((dev.vantage.cli.AnalysisCommand.Analyze) parsed.options());
        assertEquals(7, given.kernelWaitUs());
        assertEquals("mm", given.operator());
        assertEquals(2, given.minPatternLength());
    }

    @Test
    public void sequencesNeedAnOperatorAndGiveHtasColumnsForEveryRank() throws IOException {
        VerbRun r = VerbRun.verb("analyze", job.toString(), "--analysis", "sequences", "--operator", "Optimizer",
                "--format", "csv");
        assertEquals(r.err(), 0, r.code());
        List<CSVRecord> rows = blocks(r.out().strip()).get("sequences");
        assertEquals(List.of("rank", "operator", "pattern", "count", "GPU kernel duration (us)",
                "CPU op duration (us)"), rows.get(0).toList());
        // HTA finds two patterns under the optimizer on each rank of this job (DeviceAnalysesTest has the figures)
        assertEquals(1 + 2 + 2, rows.size());
        assertTrue(rows.subList(1, rows.size()).stream().allMatch(row -> row.get(2).startsWith("Optimizer")));
        VerbRun without = VerbRun.verb("analyze", job.toString(), "--analysis", "sequences");
        assertEquals(2, without.code());
        assertTrue(without.err(), without.err().contains("--operator"));
    }

    /**
     * {@code sequences} on Parquet folders (sequences.sql, DuckDB here; SparkAnalysisTest runs it on Spark) gives the
     * trace engine's patterns, counts and times, row for row: on HTA's two-rank job, whose backward ops run on a
     * thread of their own that HTA links under the main thread's steps, and on the A100 rank whose backward
     * annotations are the parents; for whole steps, the optimizer, the backward ops, and ops found on both threads
     * ({@code aten::mm}, whose backward calls sit deeper than they are on their own thread) or that last no time at
     * their parent's end ({@code aten::copy_} on the A100 rank).
     */
    @Test
    public void sequencesOnParquetAreTheEnginesPatterns() throws IOException {
        Path a100 = tmp.newFolder("a100").toPath();
        try (InputStream in = TraceAnalysesTest.class.getResourceAsStream(HTA + "negative_queue/rank0.json.gz")) {
            Files.copy(in, a100.resolve("rank0.json.gz"));
        }
        int compared = 0;
        for (Path traces : List.of(job, a100)) {
            Path parquet = tmp.getRoot().toPath().resolve(traces.getFileName() + "-sequences-parquet");
            VerbRun converted = VerbRun.verb("convert", traces.toString(), "-o", parquet.toString());
            assertEquals(converted.err(), 0, converted.code());
            // with their shortest patterns: the ops' own, one kernel or copy, are where depths matter most
            for (String op : List.of("ProfilerStep:3", "Optimizer.step:3", "evaluate_function:3", "aten::mm:1",
                    "aten::copy_:1")) {
                String length = op.substring(op.lastIndexOf(':') + 1);
                op = op.substring(0, op.lastIndexOf(':'));
                VerbRun engine = VerbRun.verb("analyze", traces.toString(), "--analysis", "sequences", "--operator",
                        op, "--min-pattern-length", length, "--format", "json");
                assertEquals(engine.err(), 0, engine.code());
                VerbRun sql = VerbRun.verb("analyze", parquet.toString(), "--analysis", "sequences", "--operator",
                        op, "--min-pattern-length", length, "--format", "json");
                assertEquals(sql.err(), 0, sql.code());
                JsonNode ours = JSON.readTree(engine.out()).get("sequences");
                JsonNode theirs = JSON.readTree(sql.out()).get("sequences");
                assertTrue(op + " in " + traces, ours.size() > 0);
                assertEquals(op + " in " + traces, ours.size(), theirs.size());
                for (int i = 0; i < ours.size(); i++) {
                    com.fasterxml.jackson.databind.node.ObjectNode row = theirs.get(i).deepCopy();
                    assertEquals(traces.getFileName().toString(), row.remove("job_id").asText());
                    assertEquals(op + " row " + i, ours.get(i), row);
                    compared++;
                }
            }
        }
        assertTrue(compared + " rows", compared > 10);
        VerbRun quoted = VerbRun.verb("analyze", tmp.getRoot().toPath().resolve("job-sequences-parquet").toString(),
                "--analysis", "sequences", "--operator", "it's");
        assertEquals(2, quoted.code());
        assertEquals(quoted.err(), 1, quoted.err().strip().lines().count());
        assertTrue(quoted.err(), quoted.err().contains("holds a quote"));
    }

    @Test
    public void filesGivenOneByOneAndOneAnalysisAskedFor() throws IOException {
        VerbRun r = VerbRun.verb("analyze", job.resolve("sampled_rank-1.json.gz").toString(),
                job.resolve("sampled_rank-0.json.gz").toString(), "--analysis", "temporal", "--format", "json");
        assertEquals(r.err(), 0, r.code());
        JsonNode out = JSON.readTree(r.out());
        assertEquals(List.of("temporal"), iterable(out.fieldNames()));
        // the ranks are the traces' own (distributedInfo), in rank order whatever the order given
        assertEquals(0, out.get("temporal").get(0).get("rank").asInt());
        assertEquals(1, out.get("temporal").get(1).get("rank").asInt());
    }

    /**
     * The per-event series go to files as each rank is read and come back rank after rank, each rank's rows what the
     * engine gives for it, whatever order the traces were given in; closing the job deletes the files.
     */
    @Test
    public void theSeriesAreKeptInFilesAndComeBackRankByRank() throws IOException {
        List<Path> reversed = List.of(job.resolve("sampled_rank-1.json.gz"), job.resolve("sampled_rank-0.json.gz"));
        List<List<Object>> expected = new ArrayList<>();
        for (Path p : List.of(reversed.get(1), reversed.get(0))) {
            try (dev.vantage.trace.engine.AnalysedTrace trace = TraceInputs.open(p, false, System.err)) {
                dev.vantage.trace.engine.device.DeviceWork work = dev.vantage.trace.engine.device.DeviceWork.of(
                        trace.data(), false);
                expected.addAll(dev.vantage.trace.engine.device.Launches.of(trace.rank(), work).rows());
            }
        }
        assertTrue(expected.size() > 100);
        Path dir;
        try (TraceAnalyses.Job analyses = TraceAnalyses.run(reversed, List.of("launch"),
                new dev.vantage.trace.engine.device.DeviceAnalyses.Settings(50, 100, 50, 1024, null, 3), System.err)) {
            dir = analyses.spillDir();
            assertTrue(Files.isDirectory(dir));
            dev.vantage.analysis.sql.ResultTable launch = analyses.tables().stream()
                    .filter(t -> t.name().equals("launch")).findFirst().orElseThrow();
            assertTrue(launch.rows() instanceof dev.vantage.analysis.sql.SpilledRows);
            assertEquals(expected, new ArrayList<>(launch.rows()));
        }
        assertTrue("closing the job deletes its files", Files.notExists(dir));
    }

    /**
     * On the job converted to Parquet, {@code temporal}, {@code kernels}, {@code launch}, {@code idle}, {@code queue},
     * {@code bandwidth} and {@code gpu} run as SQL (DuckDB here;
     * SparkAnalysisTest runs the same files on Spark) and give the trace engine's tables: the same columns after
     * {@code job_id}, the same rows in the same order (the launches by rank and correlation: the SQL gives them in
     * the order the work started, the engine in the trace's), every figure equal (the standard deviation to 1e-9 of
     * itself: the SQL engine sums squares its own way; the GPU figures' sums of doubles likewise).
     */
    @Test
    public void theDeviceAnalysesOnParquetAreTheEnginesTables() throws IOException {
        Path parquet = tmp.getRoot().toPath().resolve("job-parquet");
        VerbRun converted = VerbRun.verb("convert", job.toString(), "-o", parquet.toString());
        assertEquals(converted.err(), 0, converted.code());
        VerbRun sql = VerbRun.verb("analyze", parquet.toString(), "--analysis",
                "temporal,kernels,launch,idle,queue,bandwidth,gpu", "--format", "json", "--runtime-cutoff", "20",
                "--kernel-wait", "10",
                "--max-queue-length", "4");
        assertEquals(sql.err(), 0, sql.code());
        VerbRun engine = VerbRun.verb("analyze", job.toString(), "--analysis",
                "temporal,kernels,launch,idle,queue,bandwidth,gpu", "--format", "json", "--runtime-cutoff", "20",
                "--kernel-wait", "10",
                "--max-queue-length", "4");
        assertEquals(engine.err(), 0, engine.code());
        JsonNode fromSql = JSON.readTree(sql.out());
        JsonNode fromTraces = JSON.readTree(engine.out());
        assertEquals(List.of("temporal", "kernel_types", "kernels", "launch_summary", "launch", "idle",
                "queue_length_summary", "queue_length", "memory_bw_summary", "memory_bw", "gpu"),
                iterable(fromSql.fieldNames()));
        assertEquals(iterable(fromTraces.fieldNames()), iterable(fromSql.fieldNames()));
        Map<String, Integer> checked = new LinkedHashMap<>();
        for (String table : iterable(fromTraces.fieldNames())) {
            JsonNode a = table.equals("launch") ? byRankAndCorrelation(fromTraces.get(table)) : fromTraces.get(table);
            JsonNode b = table.equals("launch") ? byRankAndCorrelation(fromSql.get(table)) : fromSql.get(table);
            assertEquals(table, a.size(), b.size());
            assertTrue(table, a.size() > 1);
            for (int i = 0; i < a.size(); i++) {
                List<String> columns = iterable(a.get(i).fieldNames());
                List<String> withJob = new ArrayList<>(List.of("job_id"));
                withJob.addAll(columns);
                assertEquals(table, withJob, iterable(b.get(i).fieldNames()));
                for (String c : columns) {
                    JsonNode x = a.get(i).get(c);
                    JsonNode y = b.get(i).get(c);
                    String where = table + " row " + i + " " + c + ": " + a.get(i) + " against " + b.get(i);
                    if (x.isNumber() && (c.equals("stddev") || c.equals("std") || c.equals("mean")
                            || table.startsWith("memory_bw") || table.equals("gpu"))) {
                        // sums of doubles: the SQL engine adds them its own way
                        assertEquals(where, x.asDouble(), y.asDouble(), 1e-9 * Math.abs(x.asDouble()));
                    } else if (x.isNumber()) {
                        assertEquals(where, x.decimalValue().stripTrailingZeros(),
                                y.decimalValue().stripTrailingZeros());
                    } else {
                        assertEquals(where, x, y);
                    }
                }
            }
            checked.put(table, a.size());
        }
        // the job has every kernel type, overlaps of them, and names summed into others
        JsonNode types = fromTraces.get("kernel_types");
        assertTrue(types.toString(), types.toString().contains("overlapping"));
        assertTrue(fromTraces.get("kernels").toString(), fromTraces.get("kernels").toString().contains("\"others\""));
        assertEquals(2, checked.get("temporal").intValue());
        // both ranks' kernels carry blocks per SM: the SM efficiency is a figure, not the absent null
        for (JsonNode row : fromTraces.get("gpu")) {
            assertTrue(row.toString(), row.get("sm_efficiency").isNumber() && row.get("gpu_utilization").asDouble() > 0);
        }
        assertTrue(checked.get("launch") > 1000);
        assertEquals(20, fromSql.get("launch_summary").get(0).get("runtime_cutoff").asLong());
    }

    /**
     * Parquet folders written before exporter-parquet 0.3.0 have no {@code events.flow_id}: the engine's analyses
     * written as SQL are left out of every analysis with one line, and refused when asked for by name; the others run.
     */
    @Test
    public void foldersOfAnOlderExporterRunTheAnalysesTheyHaveTheColumnsFor() throws Exception {
        Path parquet = convertedWithout("job-old-parquet", "events", "flow_id");
        VerbRun every = VerbRun.verb("analyze", parquet.toString());
        assertEquals(every.err(), 0, every.code());
        assertTrue(every.err(), every.err().contains("vantage: left out: temporal, kernels, launch, idle, queue,"
                + " bandwidth need events.flow_id, which Parquet trace folders written before exporter-parquet 0.3.0"
                + " lack"));
        assertTrue(every.out(), every.out().contains("== stragglers (") && !every.out().contains("== temporal ("));
        VerbRun named = VerbRun.verb("analyze", parquet.toString(), "--analysis", "idle");
        assertEquals(2, named.code());
        assertEquals(1, named.err().strip().lines().count());
        assertTrue(named.err(), named.err().contains("--analysis idle needs events.flow_id"));
    }

    /** Folders written by exporter-parquet 0.3.0 lack the kernels' blocks per SM and occupancy that gpu reads. */
    @Test
    public void gpuNeedsTheFourthExportersKernelColumns() throws Exception {
        Path parquet = convertedWithout("job-0.3-parquet", "kernels", "blocks_per_sm, est_achieved_occupancy_pct");
        VerbRun named = VerbRun.verb("analyze", parquet.toString(), "--analysis", "gpu");
        assertEquals(2, named.code());
        assertEquals("vantage: --analysis gpu needs kernels.blocks_per_sm, kernels.est_achieved_occupancy_pct, which"
                + " Parquet trace folders written before exporter-parquet 0.4.0 lack: write them again (vantage convert"
                + " TRACE... -o DIR, or a profile with --profile-export parquet)", named.err().strip());
        VerbRun every = VerbRun.verb("analyze", parquet.toString(), "--format", "csv");
        assertEquals(every.err(), 0, every.code());
        assertTrue(every.err(), every.err().contains("vantage: left out: gpu needs kernels.blocks_per_sm"));
        assertTrue(every.out(), every.out().contains("# temporal") && !every.out().contains("# gpu"));
    }

    /** The job converted to Parquet, then each rank's table rewritten without the columns an older exporter lacks. */
    private Path convertedWithout(String folder, String table, String columns) throws Exception {
        Path parquet = tmp.getRoot().toPath().resolve(folder);
        assertEquals(0, VerbRun.verb("convert", job.toString(), "-o", parquet.toString()).code());
        try (java.sql.Connection c = new org.duckdb.DuckDBDriver().connect("jdbc:duckdb:", new java.util.Properties());
                java.sql.Statement st = c.createStatement();
                java.util.stream.Stream<Path> files = Files.walk(parquet)) {
            for (Path file : files.filter(f -> f.getFileName().toString().equals(table + ".parquet")).toList()) {
                Path old = file.resolveSibling(table + "-old.parquet");
                st.execute("COPY (SELECT * EXCLUDE (" + columns + ") FROM read_parquet('" + file + "')) TO '" + old
                        + "' (FORMAT parquet)");
                Files.move(old, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return parquet;
    }

    private static JsonNode byRankAndCorrelation(JsonNode rows) {
        List<JsonNode> sorted = new ArrayList<>();
        rows.forEach(sorted::add);
        sorted.sort(java.util.Comparator.comparingLong((JsonNode r) -> r.get("rank").asLong())
                .thenComparingLong(r -> r.get("correlation").asLong()));
        return JSON.valueToTree(sorted);
    }

    @Test
    public void theTableFormatShowsEachAnalysis() {
        VerbRun r = VerbRun.verb("analyze", job.toString(), "--analysis", "kernels");
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().contains("== kernel_types (") && r.out().contains("== kernels (")
                && !r.out().contains("== temporal"));
        assertTrue(r.out(), r.out().contains("COMPUTATION overlapping COMMUNICATION"));
        // a kernel name of 2,000 characters is cut for the terminal (csv and json carry it whole)
        assertTrue(r.out().lines().allMatch(line -> line.length() < 300));
        assertTrue(r.out(), r.out().contains("void split_embedding_backward_codegen_rowwise_adagrad"));
    }

    @Test
    public void theLaunchOutliersFollowTheCutoffsGiven() throws IOException {
        JsonNode byDefault = JSON.readTree(VerbRun.verb("analyze", job.toString(), "--analysis", "launch", "--format",
                "json").out()).get("launch_summary").get(0);
        JsonNode strict = JSON.readTree(VerbRun.verb("analyze", job.toString(), "--analysis", "launch", "--format",
                "json", "--runtime-cutoff", "0", "--launch-delay-cutoff", "0").out()).get("launch_summary").get(0);
        assertEquals(50, byDefault.get("runtime_cutoff").asLong());
        assertEquals(100, byDefault.get("launch_delay_cutoff").asLong());
        assertEquals(0, strict.get("runtime_cutoff").asLong());
        long launches = byDefault.get("launches").asLong();
        assertTrue(launches > 100);
        // at 0 us every launch call is an outlier, and no kernel is short (its call would have to be within 0 us)
        assertEquals(launches, strict.get("runtime_outliers").asLong());
        assertEquals(0, strict.get("short_kernels").asLong());
        assertTrue(byDefault.get("runtime_outliers").asLong() < launches);
        assertTrue(strict.get("launch_delay_outliers").asLong() >= byDefault.get("launch_delay_outliers").asLong());
    }

    /**
     * Vantage's devices give a copy's bytes, not its bandwidth: the bandwidth analysis takes the bytes over the
     * duration, as Kineto computes the bandwidth it writes.
     */
    @Test
    public void aVantageTracesCopiesHaveTheirBandwidthFromTheirBytes() throws IOException {
        Path trace = npuTrace("npu-bw");
        JsonNode events = events(trace);
        long lastStep = Long.MIN_VALUE;
        java.util.Map<Long, Double> launched = new java.util.HashMap<>();
        for (JsonNode e : events) {
            if (e.path("name").asText().startsWith("ProfilerStep#")) {
                lastStep = Math.max(lastStep, e.get("ts").asLong());
            }
        }
        for (JsonNode e : events) {
            if (e.path("cat").asText().endsWith("_runtime")) {
                launched.put(e.path("args").path("correlation").asLong(-1), e.get("ts").asDouble());
            }
        }
        // the copies counted (launched before the last step), each one's bytes over its duration in ns
        List<Double> expected = new ArrayList<>();
        for (JsonNode e : events) {
            Double call = launched.get(e.path("args").path("correlation").asLong(-2));
            if (e.path("cat").asText().equals("gpu_memcpy") && call != null && call < lastStep) {
                expected.add(e.path("args").get("bytes").asDouble() / (e.get("dur").asDouble() * 1000));
            }
        }
        assertTrue(expected.size() > 2);
        VerbRun r = VerbRun.verb("analyze", trace.toString(), "--analysis", "bandwidth", "--format", "json");
        assertEquals(r.err(), 0, r.code());
        JsonNode out = JSON.readTree(r.out());
        // one stream copies one block at a time: each copy is one rise to its own bandwidth and one fall to 0
        assertEquals(2 * expected.size(), out.get("memory_bw").size());
        List<Double> rises = new ArrayList<>();
        for (JsonNode row : out.get("memory_bw")) {
            if (row.get("memory_bw_gbps").asDouble() > 0) {
                rises.add(row.get("memory_bw_gbps").asDouble());
            }
        }
        expected.sort(null);
        rises.sort(null);
        assertEquals(expected.size(), rises.size());
        for (int i = 0; i < rises.size(); i++) {
            assertEquals(expected.get(i), rises.get(i), 1e-6 * expected.get(i));
        }
        // the summary per kind of copy (HtoD, DtoH) counts every rise
        long counted = 0;
        for (JsonNode row : out.get("memory_bw_summary")) {
            counted += row.get("count").asLong();
        }
        assertEquals(expected.size(), counted);
        assertEquals(2, out.get("memory_bw_summary").size());
        // written back by the engine's writer, the file has each top-level key once (Jackson's duplicate detection)
        Path copy = tmp.getRoot().toPath().resolve("npu-written.json");
        try (dev.vantage.trace.engine.AnalysedTrace t = dev.vantage.trace.engine.read.TraceReader.read(trace);
                java.io.OutputStream o = Files.newOutputStream(copy)) {
            dev.vantage.trace.engine.write.KinetoJsonWriter.write(t, "npu", o);
        }
        ObjectMapper strict = new ObjectMapper();
        strict.getFactory().enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        JsonNode written = strict.readTree(copy.toFile());
        assertTrue(written.get("baseTimeNanoseconds").isIntegralNumber());
    }

    @Test
    public void anotherRuntimesLaunchesAndQueuesAreCountedToo() throws IOException {
        // Vantage's emulated NPU records aclrtLaunchKernel and aclrtMemcpyAsync, which no HTA list names
        Path trace = npuTrace("npu");
        // from the file itself: the runtime calls whose correlation a piece of device work carries, started before
        // the last ProfilerStep
        JsonNode events = events(trace);
        java.util.Set<Long> work = new java.util.HashSet<>();
        long lastStep = Long.MIN_VALUE;
        for (JsonNode e : events) {
            String cat = e.path("cat").asText();
            if (cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset")) {
                work.add(e.path("args").path("correlation").asLong());
            }
            if (e.path("name").asText().startsWith("ProfilerStep#")) {
                lastStep = Math.max(lastStep, e.get("ts").asLong());
            }
        }
        long launches = 0;
        for (JsonNode e : events) {
            if (e.path("cat").asText().endsWith("_runtime") && work.contains(e.path("args").path("correlation").asLong(-1))
                    && e.get("ts").asDouble() < lastStep) {
                launches++;
            }
        }
        assertTrue(launches > 50);
        VerbRun r = VerbRun.verb("analyze", trace.toString(), "--analysis", "launch,queue", "--format", "json");
        assertEquals(r.err(), 0, r.code());
        JsonNode out = JSON.readTree(r.out());
        assertEquals(launches, out.get("launch_summary").get(0).get("launches").asLong());
        assertEquals(launches, out.get("launch").size());
        // each launch is two points of its stream's queue: up at the call, down at the work's start
        long points = 0;
        for (JsonNode row : out.get("queue_length_summary")) {
            points += row.get("count").asLong();
        }
        assertEquals(2 * launches, points);
    }

    /**
     * Another runtime's launches are launches for the critical path too (as for {@code launch} and {@code queue}):
     * on Vantage's NPU, an idle stream makes a launch's delay an edge of the path, so a step's path runs from the
     * host into the device, where HTA's names alone (CUDA's) would leave the device's work apart from the host's.
     */
    @Test
    public void anotherRuntimesLaunchesJoinTheHostToTheDeviceOnTheCriticalPath() throws IOException {
        Path trace = npuTrace("npu-critical-path");
        VerbRun r = VerbRun.verb("analyze", trace.toString(), "--analysis", "critical-path", "--format", "json");
        assertEquals(r.err(), 0, r.code());
        JsonNode out = JSON.readTree(r.out());
        assertTrue(out.get("critical_path_summary").size() > 0);
        long launchEdges = 0;
        long deviceEdges = 0;
        for (JsonNode edge : out.get("critical_path")) {
            launchEdges += edge.get("type").asText().equals("critical_path_kernel_launch_delay") ? 1 : 0;
            deviceEdges += edge.get("bound_by").asText().equals("gpu_compute_bound") ? 1 : 0;
        }
        assertTrue("launch delays on the path: " + launchEdges, launchEdges > 0);
        assertTrue("device work on the path: " + deviceEdges, deviceEdges > 0);
    }

    @Test
    public void namesAndInputsAreCheckedBeforeAnyTraceIsRead() throws IOException {
        assertBad(VerbRun.verb("analyze", job.toString(), "--analysis", "stragglers"),
                "--analysis stragglers runs on Parquet trace folders");
        assertBad(VerbRun.verb("analyze", job.toString(), "--analysis", "temporal,nope"), "no analysis 'nope'");
        assertBad(VerbRun.verb("analyze", job.toString(), job.resolve("missing.json").toString()),
                "is not a readable file or directory");
        assertBad(VerbRun.verb("analyze", job.toString(), "--memory-limit", "1GB"),
                "--engine and --memory-limit are for Parquet trace folders");
        // the same rank twice: the traces of two runs, whose figures would be added up
        Path twice = tmp.newFolder("twice").toPath();
        Files.copy(job.resolve("sampled_rank-0.json.gz"), twice.resolve("a.json.gz"));
        Files.copy(job.resolve("sampled_rank-0.json.gz"), twice.resolve("b.json.gz"));
        assertBad(VerbRun.verb("analyze", twice.toString()), "two traces are rank 0 (a.json.gz, b.json.gz)");
    }

    private static void assertBad(VerbRun r, String message) {
        assertEquals(r.out() + r.err(), 2, r.code());
        assertTrue(r.err(), r.err().startsWith("vantage: ") && r.err().contains(message));
    }

    private static List<String> iterable(java.util.Iterator<String> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    /** A copy of Vantage's emulated NPU trace, in a folder of its own. */
    private Path npuTrace(String folder) throws IOException {
        Path trace = tmp.newFolder(folder).toPath().resolve("mlp-train.trace.json.gz");
        try (InputStream in = TraceAnalysesTest.class.getResourceAsStream("vantage-npu/mlp-train.trace.json.gz")) {
            Files.copy(in, trace);
        }
        return trace;
    }

    /** A gzipped trace's events. */
    private static JsonNode events(Path trace) throws IOException {
        try (InputStream in = new java.util.zip.GZIPInputStream(Files.newInputStream(trace))) {
            return JSON.readTree(in).get("traceEvents");
        }
    }
}
