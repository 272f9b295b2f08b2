package dev.vantage.trace.engine.device;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.read.TraceReader;

/**
 * The device analyses against HolisticTraceAnalysis itself: real PyTorch traces from HTA's test data, and the figures
 * HTA computed for them ({@code hta/README.md} says where both come from). Counts are equal; times are equal within
 * 1 us or 0.1 %, as HTA's are whole microseconds. Where the figures differ on purpose, the test shows the difference is
 * exactly the one docs/analysis.md names.
 */
public class DeviceAnalysesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aTrainingJobOfTwoRanksHasHtasTemporalAndKernelBreakdowns() throws IOException {
        Figures ours = analyse("trace_filter/sampled_rank-0.json.gz", "trace_filter/sampled_rank-1.json.gz");
        JsonNode hta = expected("trace_filter");
        assertAsHta(hta, ours, Set.of(), true);
        // both ranks, the overlaps of the three types among the rows
        assertEquals(2, ours.temporal.size());
        assertTrue(ours.breakdown.types().stream().anyMatch(t -> t.kernelType().equals(
                "COMPUTATION overlapping COMMUNICATION")));
    }

    @Test
    public void kernelsLaunchedOutsideTheTracedStepsAreLeftOutAsHtaLeavesThemOut() throws IOException {
        Figures ours = analyse("negative_queue/rank0.json.gz");
        JsonNode hta = expected("negative_queue");
        assertAsHta(hta, ours, Set.of(), true);
        // 7,747 pieces of device work in the file: those of the last step, and those whose launch the trace lacks, go
        long counted = ours.breakdown.kernels().stream().mapToLong(KernelBreakdown.KernelRow::count).sum();
        assertTrue(counted + " counted", counted > 0 && counted < 7747 - 872);
    }

    /**
     * HTA's trace with times in fractions of a microsecond (a V100 job, 4 steps): every figure HTA gives for it, which
     * HTA computes from whole microseconds (DeviceWork's times; from the nanoseconds the idle time would be 6,453 us
     * where HTA's is 10,113).
     */
    @Test
    public void aNanosecondTraceHasHtasFigures() throws IOException {
        Figures ours = analyse("ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
        assertAsHta(expected("ns_resolution"), ours, Set.of(), true);
    }

    @Test
    public void aTraceWithoutStepsCountsAllItsKernelsButNotItsSyncs() throws IOException {
        Figures ours = analyse("alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
        JsonNode hta = expected("alexnet");
        // HTA counts the stream's cuda_sync waits as device time in a trace with fewer than two steps (and only there);
        // the engine never does: its span is that of the kernels, copies and fills, read here from the file directly
        Temporal t = ours.temporal.get(0);
        long[] span = span(resource("alexnet/benchmark_result_2869224_1695835535_trace.json.gz"),
                Set.of("kernel", "gpu_memcpy", "gpu_memset"));
        assertEquals(span[1] - span[0], t.spanNanos() / 1000);
        long[] withSyncs = span(resource("alexnet/benchmark_result_2869224_1695835535_trace.json.gz"),
                Set.of("kernel", "gpu_memcpy", "gpu_memset", "cuda_sync"));
        assertEquals(withSyncs[1] - withSyncs[0], hta.get("temporal").get(0).get("kernel_time(us)").asLong());
        assertTrue(withSyncs[1] - withSyncs[0] > t.spanNanos() / 1000);
        assertAsHta(hta, ours, Set.of("idle_time(us)", "non_compute_time(us)", "kernel_time(us)", "idle_time_pctg",
                "compute_time_pctg", "non_compute_time_pctg"), true);
    }

    @Test
    public void nanosecondTimestampsAreRoundedToMicrosecondsAsHtaRoundsThem() throws IOException {
        Path file = resource("amd/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
        JsonNode hta = expected("amd");
        // HTA moves each event's start up and its end down to whole microseconds; so do the engine's device analyses
        // on a trace PyTorch wrote: read as it is, and read once the file itself is rounded, it gives HTA's figures
        Figures direct = analyse(List.of(file));
        assertAsHta(hta, direct, Set.of(), false);
        Figures rounded = analyse(List.of(roundedAsHta(file)));
        assertAsHta(hta, rounded, Set.of(), false);
        // HTA lists CUDA's launch calls only; the engine ROCm's too: the file's 12 hipLaunchKernel and 2
        // hipExtModuleLaunchKernel calls, all before the last step (its hipMemcpyWithStream calls are synchronous)
        assertEquals(0, hta.get("launch").get("0").size());
        assertEquals(14, direct.launches.get(0).launches().size());
        assertEquals(direct.launches.get(0), rounded.launches.get(0));
        // the Memcpy HtoD row: 38.161 us of copies in the file, 35 us once each is rounded, as HTA has it
        KernelBreakdown.KernelRow copies = direct.breakdown.kernels().stream()
                .filter(k -> k.name().startsWith("Memcpy HtoD")).findFirst().get();
        assertEquals(35_000, copies.sumNanos());
    }

    @Test
    public void gpuFiguresAreThePluginsOverItsStepsAndTheStepRulesOverOurs() throws IOException {
        JsonNode plugin;
        try (InputStream in = DeviceAnalysesTest.class.getResourceAsStream("plugin/gpu.json")) {
            plugin = JSON.readTree(in);
        }
        Map<String, String> traces = Map.of("rank0.json.gz", "negative_queue/rank0.json.gz",
                "benchmark_result_2869224_1695835535_trace.json.gz",
                "alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                "sampled_rank-0.json.gz", "trace_filter/sampled_rank-0.json.gz");
        assertEquals(traces.keySet(), HtaData.names(plugin.fieldNames()));
        for (Map.Entry<String, String> e : traces.entrySet()) {
            JsonNode figures = plugin.get(e.getKey());
            JsonNode gpu = figures.get("gpus").get("0");
            try (AnalysedTrace t = TraceReader.read(resource(e.getValue()))) {
                // over the plugin's own span: its figures
                long from = Math.round(figures.get("span_us").get(0).asDouble() * 1000);
                long to = Math.round(figures.get("span_us").get(1).asDouble() * 1000);
                GpuMetrics.Device d = GpuMetrics.of(0, t, from, to).devices().get(0);
                String which = e.getValue();
                // within 0.1 % (measured before the engine's sweep kept exact times: utilization and occupancy to
                // 1e-8, SM efficiency to 0.002 %)
                double u = gpu.get("gpu_utilization").asDouble();
                double sm = gpu.get("sm_efficiency").asDouble();
                double occupancy = gpu.get("achieved_occupancy").asDouble();
                assertEquals(which, u, d.utilization(), 0.001 * u);
                assertEquals(which, sm, d.smEfficiency(), 0.001 * sm);
                assertEquals(which, occupancy, d.occupancyPct(), 0.001 * occupancy);
                // over the engine's steps (StepRule): the same kernels, so the busy time is the same; only the span
                // differs where the two step rules end a step at different device work
                GpuMetrics.Device ours = GpuMetrics.of(0, t).devices().get(0);
                assertEquals(which, d.occupancyPct(), ours.occupancyPct(), 0.01);
                assertTrue(which + ": spans " + ours.spanNanos() + " and " + (to - from),
                        Math.abs(ours.spanNanos() - (to - from)) <= 0.01 * (to - from));
            }
        }
    }

    /** The TensorBoard plugin's list of Tensor Core kernels (its {@code tensor_core.py}, kineto 94979607^). */
    private static final List<String> PLUGIN_TENSOR_CORE_KERNELS = List.of("h884", "s884", "h1688", "s1688", "hmma",
            "i8816", "16816", "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1",
            "direct_group", "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm", "xmma_gemm",
            "xmma_sparse_gemm", "c1688");

    @Test
    public void theTensorCoreShareCountsTheTf32KernelThePluginsListMisses() throws IOException {
        Path file = resource("alexnet/benchmark_result_2869224_1695835535_trace.json.gz");
        // from the file: all kernel time, the plugin's Tensor Core kernels' (none: its tc_ratio is 0), and the one
        // cuDNN TF32 kernel, sm80_xmma_fprop_implicit_gemm_indexed_tf32..., that runs on Tensor Cores
        long all = 0;
        long plugins = 0;
        long tf32 = 0;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            for (JsonNode e : JSON.readTree(in).get("traceEvents")) {
                if ("kernel".equals(e.path("cat").asText())) {
                    String name = e.get("name").asText();
                    long dur = e.get("dur").asLong();
                    all += dur;
                    plugins += PLUGIN_TENSOR_CORE_KERNELS.stream().anyMatch(name::contains) ? dur : 0;
                    tf32 += name.startsWith("sm80_xmma_fprop_implicit_gemm_indexed_tf32") ? dur : 0;
                }
            }
        }
        JsonNode plugin;
        try (InputStream in = DeviceAnalysesTest.class.getResourceAsStream("plugin/gpu.json")) {
            plugin = JSON.readTree(in);
        }
        assertEquals(0, plugins);
        assertEquals(0.0, plugin.get("benchmark_result_2869224_1695835535_trace.json.gz").get("gpus").get("0")
                .get("tc_ratio").asDouble(), 0.0);
        assertTrue(tf32 > 0);
        try (AnalysedTrace t = TraceReader.read(file)) {
            assertEquals(100.0 * tf32 / all, GpuMetrics.of(0, t).devices().get(0).tensorCorePct(), 1e-9);
        }
    }

    /**
     * A PyTorch trace written back by the engine's Kineto writer keeps a device's fractional facts as JSON numbers,
     * digit for digit (HTA and the plugin read {@code blocks per SM} and {@code memory bandwidth (GB/s)} as numbers),
     * and the bandwidth analysis of the written file is that of the original.
     */
    @Test
    public void writtenBackADevicesFractionalFactsStayNumbersAndGiveTheSameBandwidth() throws IOException {
        Path original = resource("trace_filter/sampled_rank-0.json.gz");
        Path copy = tmp.getRoot().toPath().resolve("copy.json");
        Bandwidth before;
        try (AnalysedTrace t = TraceReader.read(original); OutputStream out = Files.newOutputStream(copy)) {
            before = Bandwidth.of(0, DeviceWork.of(t.data(), false));
            dev.vantage.trace.engine.write.KinetoJsonWriter.write(t, "copy", out);
        }
        Map<String, JsonNode> facts = new HashMap<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(original))) {
            for (JsonNode e : JSON.readTree(in).get("traceEvents")) {
                JsonNode args = e.path("args");
                if (args.has("blocks per SM") || args.has("memory bandwidth (GB/s)")) {
                    facts.put(e.path("args").path("correlation").asText() + " " + e.path("name").asText(), args);
                }
            }
        }
        int checked = 0;
        for (JsonNode e : JSON.readTree(copy.toFile()).get("traceEvents")) {
            JsonNode given = facts.get(e.path("args").path("correlation").asText() + " " + e.path("name").asText());
            if (given == null) {
                continue;
            }
            for (String key : List.of("blocks per SM", "memory bandwidth (GB/s)")) {
                if (given.has(key)) {
                    JsonNode written = e.path("args").get(key);
                    assertTrue(key + " of " + e.get("name") + " is a number: " + written, written != null
                            && written.isNumber());
                    assertEquals(key, given.get(key).decimalValue(), written.decimalValue());
                    checked++;
                }
            }
        }
        assertTrue(checked + " facts checked", checked > 100);
        Bandwidth after;
        try (AnalysedTrace t = TraceReader.read(copy)) {
            after = Bandwidth.of(0, DeviceWork.of(t.data(), false));
        }
        assertEquals(before.kinds().keySet(), after.kinds().keySet());
        before.kinds().forEach((kind, s) -> assertTrue(kind, java.util.Arrays.equals(s.gbps(),
                after.kinds().get(kind).gbps())));
    }

    /**
     * HTA's frequent kernel sequences on both ranks of the training job, for a whole step, the optimizer and the
     * backward ops (which run on their own thread and which HTA, as the engine, puts under the step that holds them):
     * every pattern, its count and its device and host time equal HTA's.
     */
    /**
     * The one runner of {@code analyze}, {@code report} and the board: asked for every analysis it hands over every
     * table {@link DeviceTables} names, in its order, each row as wide as its columns, and the same rows as the
     * analyses called one by one; the kernel tables go to a breakdown across ranks when one is given.
     */
    @Test
    public void theRunnerGivesEveryTableInOrderWithTheAnalysesOwnRows() throws IOException {
        try (AnalysedTrace t = TraceReader.read(resource("trace_filter/sampled_rank-1.json.gz"))) {
            Map<String, List<List<Object>>> tables = new java.util.LinkedHashMap<>();
            DeviceAnalyses.Sink sink = new DeviceAnalyses.Sink() {
                @Override
                public void rows(String table, List<List<Object>> rows) {
                    assertEquals(table, null, tables.put(table, rows));
                }

                @Override
                public void series(String table, java.util.function.Supplier<List<List<Object>>> rows) {
                    rows(table, rows.get());
                }
            };
            new DeviceAnalyses(1, t, DeviceAnalyses.Settings.HTA.withOperator("ProfilerStep"))
                    .run(DeviceAnalyses.NAMES, null, null, sink);
            assertEquals(List.of("temporal", "kernel_types", "kernels", "launch_summary", "launch", "idle",
                    "queue_length_summary", "queue_length", "memory_bw_summary", "memory_bw", "sequences",
                    "critical_path_summary", "critical_path", "gpu", "advice"), List.copyOf(tables.keySet()));
            tables.forEach((name, rows) -> {
                assertTrue(name, !rows.isEmpty() || name.equals("advice"));
                rows.forEach(row -> assertEquals(name, DeviceTables.columns(name).size(), row.size()));
            });
            DeviceWork work = DeviceWork.of(t.data(), false);
            assertEquals(List.of(Temporal.of(1, work).row()), tables.get("temporal"));
            assertEquals(Launches.of(1, work).rows(), tables.get("launch"));
            assertEquals(QueueLength.of(1, work).summary(QueueLength.MAX_QUEUE_LENGTH),
                    tables.get("queue_length_summary"));
            assertEquals(Sequences.of(1, t.data(), work, "ProfilerStep", Sequences.MIN_PATTERN_LENGTH).table(),
                    tables.get("sequences"));

            // a summary-only sink never has the series made; kernels go to the breakdown across ranks
            tables.clear();
            KernelBreakdown.Builder across = KernelBreakdown.builder();
            new DeviceAnalyses(1, t, DeviceAnalyses.Settings.HTA).run(List.of("kernels", "launch", "idle"), null,
                    across, (table, rows) -> tables.put(table, rows));
            assertEquals(List.of("launch_summary", "idle"), List.copyOf(tables.keySet()));
            assertEquals(KernelBreakdown.builder().add(1, work).build(), across.build());
        }
    }

    @Test(expected = IllegalArgumentException.class)
    public void sequencesWithoutAnOperatorAreRefused() throws IOException {
        try (AnalysedTrace t = TraceReader.read(resource("trace_filter/sampled_rank-1.json.gz"))) {
            new DeviceAnalyses(1, t, DeviceAnalyses.Settings.HTA).run(List.of("sequences"), null, null,
                    (table, rows) -> { });
        }
    }

    @Test
    public void settingsOutsideTheirRangeAreRefused() {
        for (Runnable bad : List.<Runnable>of(() -> new DeviceAnalyses.Settings(-1, 100, 30, 1024, null, 3),
                () -> new DeviceAnalyses.Settings(50, 100, 30, 0, null, 3),
                () -> new DeviceAnalyses.Settings(50, 100, 30, 1024, "", 3),
                () -> new DeviceAnalyses.Settings(50, 100, 30, 1024, "mm", 0))) {
            try {
                bad.run();
                throw new AssertionError("accepted");
            } catch (IllegalArgumentException expected) {
                // refused
            }
        }
        // HTA's defaults (docs/analysis.md): 50 and 100 us, 30 us, CUDA's 1,024, 3 kernels
        assertEquals(new DeviceAnalyses.Settings(50, 100, 30, 1024, null, 3), DeviceAnalyses.Settings.HTA);
    }

    @Test
    public void kernelSequencesAreHtasOnBothRanks() throws IOException {
        for (int rank = 0; rank < 2; rank++) {
            JsonNode hta = expectedSequences("trace_filter.rank" + rank);
            try (AnalysedTrace t = TraceReader.read(resource("trace_filter/sampled_rank-" + rank + ".json.gz"))) {
                DeviceWork work = DeviceWork.of(t.data(), false);
                for (String op : List.of("ProfilerStep", "Optimizer", "evaluate_function")) {
                    Sequences ours = Sequences.of(rank, t.data(), work, op, Sequences.MIN_PATTERN_LENGTH);
                    assertTrue(op, ours.patterns().size() > 0);
                    assertEquals(op + " on rank " + rank, byPattern(hta.get(op)), byPattern(ours));
                }
            }
        }
    }

    /**
     * On the A100 rank the optimizer's sequences are HTA's; the steps' and the backward ops' differ where HTA's
     * linking of the backward thread differs (docs/analysis.md): every step has the same host time in both, and the
     * same kernels in all, but HTA gives ProfilerStep#550 two passes of backward kernels and #553 none, where the engine
     * gives each step the pass whose launches its span holds, and HTA counts one pass of backward ops at the shallowest
     * depth where the engine counts the four.
     */
    @Test
    public void kernelSequencesDifferFromHtasOnlyWhereHtaLinksTheBackwardThreadElsewhere() throws IOException {
        JsonNode hta = expectedSequences("negative_queue");
        try (AnalysedTrace t = TraceReader.read(resource("negative_queue/rank0.json.gz"))) {
            DeviceWork work = DeviceWork.of(t.data(), false);
            assertEquals(byPattern(hta.get("Optimizer.step")), byPattern(Sequences.of(0, t.data(), work,
                    "Optimizer.step", 3)));
            Sequences steps = Sequences.of(0, t.data(), work, "ProfilerStep", 3);
            Map<String, Long> htaHost = new HashMap<>();
            Map<String, Long> htaLength = new HashMap<>();
            long htaKernels = 0;
            for (JsonNode row : hta.get("ProfilerStep")) {
                htaHost.put(row.get("pattern_root").asText(), row.get("CPU op duration (us)").asLong());
                htaLength.put(row.get("pattern_root").asText(), row.get("pattern_length").asLong() - 1);
                htaKernels += row.get("pattern_length").asLong() - 1;
            }
            long kernels = 0;
            for (Sequences.Pattern p : steps.patterns()) {
                String root = p.pattern().substring(0, p.pattern().indexOf('|'));
                assertEquals(root, (long) htaHost.get(root), p.hostNanos() / 1000);
                kernels += p.pattern().chars().filter(c -> c == '|').count();
                assertEquals(root, 1375, p.pattern().chars().filter(c -> c == '|').count());
            }
            assertEquals(htaHost.keySet().size(), steps.patterns().size());
            assertEquals("the same kernels in all", htaKernels, kernels);
            assertEquals(Map.of("ProfilerStep#550", 1930L, "ProfilerStep#551", 1375L, "ProfilerStep#552", 1375L,
                    "ProfilerStep#553", 820L), htaLength);
            Map<String, List<Long>> htaBackward = byPattern(hta.get("evaluate_function"));
            Map<String, List<Long>> backward = byPattern(Sequences.of(0, t.data(), work, "evaluate_function", 3));
            assertEquals(htaBackward.keySet(), backward.keySet());
            htaBackward.forEach((p, h) -> assertEquals(p, 4 * h.get(0), (long) backward.get(p).get(0)));
        }
    }

    @Test
    public void theQuantileIsPandasLinearInterpolation() {
        // pandas 1.5.3: Series([1, 2, 3, 4]).quantile(0.8) is 3.4, Series([10, 30, 60]).quantile(0.8) 48.0, Series([7]) 7.0
        assertEquals(3.4, KernelBreakdown.quantile(new double[] {1, 2, 3, 4}, 0.8), 1e-12);
        assertEquals(48.0, KernelBreakdown.quantile(new double[] {10, 30, 60}, 0.8), 1e-12);
        assertEquals(7.0, KernelBreakdown.quantile(new double[] {7}, 0.8), 1e-12);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private record Figures(List<Temporal> temporal, KernelBreakdown breakdown, List<Launches> launches,
            List<IdleTime> idle, List<QueueLength> queues, List<Bandwidth> bandwidths) {
    }

    private Figures analyse(String... names) throws IOException {
        List<Path> files = new ArrayList<>();
        for (String n : names) {
            files.add(resource(n));
        }
        return analyse(files);
    }

    private static Figures analyse(List<Path> files) throws IOException {
        List<Temporal> temporal = new ArrayList<>();
        List<Launches> launches = new ArrayList<>();
        List<IdleTime> idle = new ArrayList<>();
        List<QueueLength> queues = new ArrayList<>();
        List<Bandwidth> bandwidths = new ArrayList<>();
        KernelBreakdown.Builder b = KernelBreakdown.builder();
        for (int i = 0; i < files.size(); i++) {
            try (AnalysedTrace t = TraceReader.read(files.get(i))) {
                int rank = t.rank() >= 0 ? t.rank() : i;
                DeviceWork work = DeviceWork.of(t.data(), false);
                temporal.add(Temporal.of(rank, work));
                launches.add(Launches.of(rank, work));
                idle.add(IdleTime.of(rank, work, IdleTime.KERNEL_WAIT_US * 1000));
                queues.add(QueueLength.of(rank, work));
                bandwidths.add(Bandwidth.of(rank, work));
                b.add(rank, work);
            }
        }
        return new Figures(temporal, b.build(), launches, idle, queues, bandwidths);
    }

    private Path resource(String name) throws IOException {
        return HtaData.trace(tmp, name);
    }

    private static JsonNode expectedSequences(String name) throws IOException {
        return htaFile(name + ".sequences.json");
    }

    /**
     * HTA's sequence rows by pattern: count, device time and host time in whole microseconds; a long pattern by the
     * SHA-256 of its text, as the script stores it.
     */
    private static Map<String, List<Long>> byPattern(JsonNode rows) {
        Map<String, List<Long>> out = new HashMap<>();
        for (JsonNode r : rows) {
            String key = r.has("pattern") ? r.get("pattern").asText() : r.get("pattern_sha256").asText();
            out.put(key, List.of(r.get("count").asLong(), r.get("GPU kernel duration (us)").asLong(),
                    r.get("CPU op duration (us)").asLong()));
        }
        return out;
    }

    /** The engine's patterns keyed as {@link #byPattern(JsonNode)} keys HTA's. */
    private static Map<String, List<Long>> byPattern(Sequences s) {
        Map<String, List<Long>> out = new HashMap<>();
        for (Sequences.Pattern p : s.patterns()) {
            boolean hashed = p.pattern().chars().filter(c -> c == '|').count() + 1 > 50;
            String key = hashed ? HtaData.sha256(p.pattern()) : p.pattern();
            out.put(key, List.of(p.count(), Math.round(p.deviceNanos() / 1000.0), Math.round(p.hostNanos() / 1000.0)));
        }
        return out;
    }

    private static JsonNode expected(String name) throws IOException {
        return htaFile(name + ".hta.json");
    }

    private static JsonNode htaFile(String file) throws IOException {
        return HtaData.json("hta/" + file);
    }

    /**
     * Every analysis against HTA's figures for the same traces: the temporal breakdown but the columns named, the
     * kernel breakdown, the launches when HTA lists the trace's launch calls, the idle time and the queue lengths.
     */
    private static void assertAsHta(JsonNode hta, Figures ours, Set<String> temporalDiffering, boolean launches) {
        assertTemporal(hta, ours, temporalDiffering);
        assertKernelTypes(hta, ours);
        assertKernels(hta, ours);
        if (launches) {
            assertLaunches(hta, ours);
        }
        assertIdle(hta, ours);
        assertQueues(hta, ours);
        assertBandwidth(hta, ours);
    }

    private static boolean close(double ours, double hta) {
        return Math.abs(ours - hta) <= Math.max(1.0, 0.001 * Math.abs(hta));
    }

    private static void assertTemporal(JsonNode hta, Figures ours, Set<String> differing) {
        Map<Integer, List<Object>> byRank = new HashMap<>();
        ours.temporal.forEach(t -> byRank.put(t.rank(), t.row()));
        assertEquals(hta.get("temporal").size(), byRank.size());
        for (JsonNode row : hta.get("temporal")) {
            List<Object> mine = byRank.get(row.get("rank").asInt());
            for (int c = 1; c < Temporal.COLUMNS.size(); c++) {
                String column = Temporal.COLUMNS.get(c);
                if (differing.contains(column)) {
                    continue;
                }
                double h = row.get(column).asDouble();
                double o = ((Number) mine.get(c)).doubleValue();
                boolean ok = column.endsWith("_pctg") ? Math.abs(h - o) <= 0.011 : close(o, h);
                assertTrue(column + " of rank " + row.get("rank") + ": HTA " + h + ", engine " + o, ok);
            }
        }
    }

    private static void assertKernelTypes(JsonNode hta, Figures ours) {
        Map<String, KernelBreakdown.TypeShare> byName = new HashMap<>();
        ours.breakdown.types().forEach(t -> byName.put(t.kernelType(), t));
        Set<String> seen = new HashSet<>();
        for (JsonNode row : hta.get("kernel_types")) {
            String type = row.get("kernel_type").asText();
            KernelBreakdown.TypeShare mine = byName.get(type);
            if (row.get("sum").asLong() == 0 && mine == null) {
                continue;   // a moment of no length: HTA lists its label, the engine does not
            }
            assertTrue("kernel type " + type + " missing", mine != null);
            assertTrue(type + ": HTA " + row.get("sum") + " us, engine " + mine.nanos() / 1000.0,
                    close(mine.nanos() / 1000.0, row.get("sum").asDouble()));
            assertEquals(type, row.get("percentage").asDouble(), mine.percentage(), 0.11);
            seen.add(type);
        }
        assertEquals(seen, byName.keySet());
    }

    /**
     * Every kernel row: the same names per rank and type, sums equal. Max, min, mean and deviation are compared where
     * HTA computes them over the executions: in a rank's type of at most 10 kernels. Beyond 10, HTA takes them over the
     * per-name sums instead (docs/analysis.md); there the engine's describe the executions, checked against its sum.
     */
    private static void assertKernels(JsonNode hta, Figures ours) {
        Map<String, KernelBreakdown.KernelRow> byKey = new HashMap<>();
        Set<String> grouped = new HashSet<>();
        for (KernelBreakdown.KernelRow k : ours.breakdown.kernels()) {
            byKey.put(k.kernelType() + "|" + k.rank() + "|" + k.name(), k);
            if (k.name().equals("others")) {
                grouped.add(k.kernelType() + "|" + k.rank());
            }
        }
        assertEquals(hta.get("kernels").size(), byKey.size());
        for (JsonNode row : hta.get("kernels")) {
            String group = row.get("kernel_type").asText() + "|" + row.get("rank").asInt();
            String key = group + "|" + row.get("name").asText();
            KernelBreakdown.KernelRow mine = byKey.get(key);
            assertTrue("kernel " + key + " missing", mine != null);
            assertTrue(key + " sum: HTA " + row.get("sum (us)") + ", engine " + mine.sumNanos() / 1000.0,
                    close(mine.sumNanos() / 1000.0, row.get("sum (us)").asDouble()));
            if (!grouped.contains(group)) {
                assertTrue(key + " max", close(mine.maxNanos() / 1000.0, row.get("max (us)").asDouble()));
                assertTrue(key + " min", close(mine.minNanos() / 1000.0, row.get("min (us)").asDouble()));
                assertTrue(key + " mean", close(mine.meanNanos() / 1000.0, row.get("mean (us)").asDouble()));
                assertTrue(key + " stddev: HTA " + row.get("stddev") + ", engine " + mine.stddevNanos() / 1000.0,
                        close(mine.stddevNanos() / 1000.0, row.get("stddev").asDouble()));
            } else {
                assertEquals(key, mine.sumNanos(), Math.round(mine.meanNanos() * mine.count()));
                assertTrue(key, mine.minNanos() <= mine.meanNanos() && mine.meanNanos() <= mine.maxNanos());
            }
        }
    }

    /** Every launch of every rank, by correlation: the call's and the work's durations and the delay, as HTA's. */
    private static void assertLaunches(JsonNode hta, Figures ours) {
        for (Launches l : ours.launches) {
            JsonNode rows = hta.get("launch").get(Integer.toString(l.rank()));
            Map<Long, Launches.Launch> byCorrelation = new HashMap<>();
            l.launches().forEach(x -> byCorrelation.put(x.correlation(), x));
            assertEquals("launches of rank " + l.rank(), rows.size(), byCorrelation.size());
            for (JsonNode row : rows) {
                Launches.Launch mine = byCorrelation.get(row.get("correlation").asLong());
                String key = "launch " + row.get("correlation") + " of rank " + l.rank();
                assertTrue(key + " missing", mine != null);
                assertTrue(key, close(mine.cpuNanos() / 1000.0, row.get("cpu_duration").asDouble()));
                assertTrue(key, close(mine.gpuNanos() / 1000.0, row.get("gpu_duration").asDouble()));
                assertTrue(key + " delay: HTA " + row.get("launch_delay") + ", engine " + mine.delayNanos() / 1000.0,
                        close(mine.delayNanos() / 1000.0, row.get("launch_delay").asDouble()));
            }
        }
    }

    /** Every stream's idle categories of every rank, as HTA's: the same rows, times and ratios. */
    private static void assertIdle(JsonNode hta, Figures ours) {
        for (IdleTime t : ours.idle) {
            JsonNode rows = hta.get("idle").get(Integer.toString(t.rank()));
            Map<String, IdleTime.Row> byKey = new HashMap<>();
            t.rows().forEach(r -> byKey.put(r.stream() + "|" + r.category(), r));
            assertEquals("idle rows of rank " + t.rank(), rows.size(), byKey.size());
            for (JsonNode row : rows) {
                String key = row.get("stream").asLong() + "|" + row.get("idle_category").asText();
                IdleTime.Row mine = byKey.get(key);
                assertTrue("idle " + key + " of rank " + t.rank() + " missing", mine != null);
                assertTrue(key + ": HTA " + row.get("idle_time") + ", engine " + mine.nanos() / 1000.0,
                        close(mine.nanos() / 1000.0, row.get("idle_time").asDouble()));
                JsonNode ratio = row.get("idle_time_ratio");
                if (ratio.isNumber() && !Double.isNaN(ratio.asDouble())) {
                    assertEquals(key, ratio.asDouble(), mine.ratio(), 0.011);
                } else {
                    assertEquals(key, null, mine.ratio());
                }
            }
        }
    }

    /**
     * Every stream's queue length of every rank, as HTA's: the series value by value, but where a launch and a start
     * fall on one instant (HTA orders them as its unstable sort leaves them, the engine launches first); the summary's
     * statistics within 0.1 %; the time at a queue of 1 or more (HTA keeps one stream per rank there: the last).
     */
    private static void assertQueues(JsonNode hta, Figures ours) {
        for (QueueLength q : ours.queues) {
            JsonNode series = hta.get("queue_length").get(Integer.toString(q.rank()));
            Map<Long, List<long[]>> htaSeries = new HashMap<>();
            if (series != null) {
                for (JsonNode row : series) {
                    htaSeries.computeIfAbsent(row.get("stream").asLong(), x -> new ArrayList<>())
                            .add(new long[] {row.get("ts").asLong(), row.get("queue_length").asLong()});
                }
            }
            assertEquals("streams with launches on rank " + q.rank(), htaSeries.keySet(), q.streams().keySet());
            q.streams().forEach((stream, s) -> {
                List<long[]> h = htaSeries.get(stream);
                String which = "queue of stream " + stream + " on rank " + q.rank();
                assertEquals(which + ": points", h.size(), s.lengths().length);
                for (int i = 0; i < h.size(); i++) {
                    if (h.get(i)[1] != s.lengths()[i]) {
                        boolean tie = i > 0 && h.get(i - 1)[0] == h.get(i)[0]
                                || i + 1 < h.size() && h.get(i + 1)[0] == h.get(i)[0];
                        assertTrue(which + ": point " + i + " is " + s.lengths()[i] + ", HTA's " + h.get(i)[1]
                                + " at " + h.get(i)[0] + " us, no other change at that instant", tie);
                    }
                }
            });
            Map<Long, List<Object>> summary = new HashMap<>();
            q.summary(QueueLength.MAX_QUEUE_LENGTH).forEach(r -> summary.put((Long) r.get(1), r));
            for (JsonNode row : hta.get("queue_length_summary")) {
                if (row.get("rank").asInt() != q.rank()) {
                    continue;
                }
                List<Object> mine = summary.get(row.get("stream").asLong());
                for (int c = 2; c < 10; c++) {
                    String column = QueueLength.SUMMARY_COLUMNS.get(c);
                    JsonNode h = row.get(column);
                    Object o = mine.get(c);
                    if (h.isNull()) {
                        assertEquals(column, null, o);
                    } else {
                        assertEquals(column + " of stream " + row.get("stream"), h.asDouble(),
                                ((Number) o).doubleValue(), 0.001 * Math.max(1, Math.abs(h.asDouble())));
                    }
                }
            }
            for (JsonNode row : hta.get("queue_full_at_1")) {
                if (row.get("rank").asInt() == q.rank()) {
                    long stream = row.get("stream").asLong();
                    double mine = q.streams().get(stream).nanosAtLeast(1) / 1000.0;
                    assertTrue("time at a queue of 1 on stream " + stream + ": HTA "
                            + row.get("duration_at_max_queue_length") + ", engine " + mine,
                            close(mine, row.get("duration_at_max_queue_length").asDouble()));
                }
            }
        }
    }

    /**
     * The memory bandwidth: for each rank and kind of copy, as many points as HTA's series, each at HTA's time from the
     * series' first point (within 1 us) with HTA's value (within 0.1 %), but where two changes fall on one instant (HTA orders them as its unstable
     * sort leaves them, the engine ends first); the summary's statistics within 0.1 % for every kind whose series has
     * no such instant. A kind of copy whose trace gives neither a bandwidth nor bytes has no series here (HTA's is all
     * zeros, and its summary, which leaves zeros out, has no row for it either).
     */
    private static void assertBandwidth(JsonNode hta, Figures ours) {
        for (Bandwidth b : ours.bandwidths) {
            Map<String, List<double[]>> htaSeries = new HashMap<>();
            JsonNode series = hta.get("memory_bw").get(Integer.toString(b.rank()));
            if (series != null) {
                for (JsonNode row : series) {
                    htaSeries.computeIfAbsent(row.get("name").asText(), x -> new ArrayList<>())
                            .add(new double[] {row.get("ts").asDouble(), row.get("memory_bw_gbps").asDouble()});
                }
            }
            htaSeries.values().removeIf(points -> points.stream().allMatch(p -> p[1] == 0));
            assertEquals("kinds of copies with a bandwidth on rank " + b.rank(), htaSeries.keySet(), b.kinds().keySet());
            Set<String> tied = new HashSet<>();
            b.kinds().forEach((kind, s) -> {
                List<double[]> h = htaSeries.get(kind);
                String which = kind + " on rank " + b.rank();
                assertEquals(which + ": points", h.size(), s.gbps().length);
                for (int i = 0; i < h.size(); i++) {
                    // HTA's times are from its trace's first event, ours on the trace's clock: compared from the first point
                    double at = (s.times()[i] - s.times()[0]) / 1000.0;
                    double htaAt = h.get(i)[0] - h.get(0)[0];
                    assertTrue(which + ": point " + i + " at " + at + " us, HTA's at " + htaAt,
                            Math.abs(at - htaAt) <= 1.0);
                    boolean tie = i > 0 && h.get(i - 1)[0] == h.get(i)[0]
                            || i + 1 < h.size() && h.get(i + 1)[0] == h.get(i)[0];
                    if (tie) {
                        tied.add(kind);
                    } else {
                        assertEquals(which + ": point " + i, h.get(i)[1], s.gbps()[i],
                                1e-9 + 0.001 * Math.abs(h.get(i)[1]));
                    }
                }
            });
            Map<String, List<Object>> summary = new HashMap<>();
            b.summary().forEach(r -> summary.put((String) r.get(1), r));
            int compared = 0;
            for (JsonNode row : hta.path("memory_bw_summary")) {
                String kind = row.get("name").asText();
                if (row.get("rank").asInt() != b.rank() || tied.contains(kind)) {
                    continue;
                }
                List<Object> mine = summary.get(kind);
                for (int c = 2; c < Bandwidth.SUMMARY_COLUMNS.size(); c++) {
                    String column = Bandwidth.SUMMARY_COLUMNS.get(c);
                    JsonNode h = row.get(column);
                    Object o = mine.get(c);
                    if (h.isNull()) {
                        assertEquals(column, null, o);
                    } else {
                        assertEquals(column + " of " + kind + " on rank " + b.rank(), h.asDouble(),
                                ((Number) o).doubleValue(), 1e-9 + 0.001 * Math.abs(h.asDouble()));
                    }
                }
                compared++;
            }
            assertEquals("summary rows on rank " + b.rank(), summary.size() - tied.size(), compared);
        }
    }

    /** The first start and last end, in whole microseconds, of the events of some categories on a stream. */
    private static long[] span(Path gz, Set<String> categories) throws IOException {
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            for (JsonNode e : JSON.readTree(in).get("traceEvents")) {
                if ("X".equals(e.path("ph").asText()) && categories.contains(e.path("cat").asText())
                        && e.path("args").has("stream") && e.path("args").get("stream").asLong() != -1) {
                    from = Math.min(from, e.get("ts").asLong());
                    to = Math.max(to, e.get("ts").asLong() + e.get("dur").asLong());
                }
            }
        }
        return new long[] {from, to};
    }

    /** A copy of a trace with each complete event's start rounded up and its end down to whole microseconds. */
    private Path roundedAsHta(Path gz) throws IOException {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
            root = JSON.readTree(in);
        }
        for (JsonNode e : root.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText()) && e.has("ts") && e.has("dur")) {
                double ts = e.get("ts").asDouble();
                long start = (long) Math.ceil(ts);
                long end = (long) Math.floor(ts + e.get("dur").asDouble());
                ((ObjectNode) e).put("ts", start);
                ((ObjectNode) e).put("dur", end - start);
            }
        }
        Path out = tmp.newFile("rounded.json.gz").toPath();
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(out))) {
            JSON.writeValue(o, root);
        }
        return out;
    }
}
