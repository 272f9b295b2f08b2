package dev.vantage.trace.engine.read;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.trace.engine.read.KinetoVariants.Variant;
import dev.vantage.trace.engine.summary.TraceSummary;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.DeviceOverlap;
import dev.vantage.trace.engine.summary.CollectiveStats;
import dev.vantage.trace.engine.summary.KernelLaunchStats;

/**
 * Every Kineto variant torch has written gives the same operator device times, kernels and steps; the legacy array
 * gives the same device times through its flows. The figures of the modern variant are worked out by hand.
 */
public class KinetoVariantsTest {

    private static final long US = 1000;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private TraceSummary read(Variant v, int rank, String suffix) throws IOException {
        return TraceReader.summary(KinetoVariants.write(tmp.getRoot().toPath().resolve(v + "-" + rank + suffix), v, rank));
    }

    private static OpStats op(TraceSummary s, String name) {
        return s.ops().stream().filter(o -> o.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no op " + name + " in " + s.ops()));
    }

    private static List<OpStats> operators(List<OpStats> rows) {
        return rows.stream().filter(OpStats::isOperator).toList();
    }

    @Test
    public void bothLinkagesOldCategoriesAndRocmGiveTheSameFigures() throws IOException {
        TraceSummary modern = read(Variant.MODERN, 0, ".json");
        for (Variant v : List.of(Variant.CORRELATION_2022, Variant.TB_2021, Variant.ROCM)) {
            TraceSummary other = read(v, 0, ".json.gz");
            // the operators: the runtime calls' rows are named by each runtime (cudaLaunchKernel, hipLaunchKernel)
            assertEquals(v + ": operators", operators(modern.ops()), operators(other.ops()));
            assertEquals(v + ": operators by shape", operators(modern.opsByShape()), operators(other.opsByShape()));
            assertEquals(v + ": kernels", modern.kernels(), other.kernels());
            assertEquals(v + ": kernels by operator", modern.kernelsByOp(), other.kernelsByOp());
            assertEquals(v + ": steps", modern.steps(), other.steps());
            assertEquals(v + ": kernel launches", modern.kernelLaunches(), other.kernelLaunches());
            assertEquals(v + ": overlap", modern.overlap(), other.overlap());
        }
    }

    @Test
    public void operatorDeviceTimesAsWorkedOutByHand() throws IOException {
        TraceSummary s = read(Variant.MODERN, 0, ".json");
        assertEquals("GEMM and copy launched by addmm", 164 * US, op(s, "aten::addmm").deviceSelfNanos());
        assertEquals(0, op(s, "aten::linear").deviceSelfNanos());
        assertEquals(164 * US, op(s, "aten::linear").deviceTotalNanos());
        assertEquals("addmm less its two runtime calls", 50 * US, op(s, "aten::addmm").selfNanos());
        assertEquals(260 * US, op(s, "nccl:all_reduce").deviceSelfNanos());
        assertEquals("the launch on the backward thread", 190 * US, op(s, "aten::mm").deviceSelfNanos());
        assertEquals(190 * US, op(s, "AddmmBackward0").deviceTotalNanos());
        assertEquals("a CUDA graph's kernels share its launch", 20 * US, op(s, "CUDAGraph.replay").deviceSelfNanos());
        assertEquals(2, s.steps().size());
        assertEquals(KinetoVariants.BASE_NANOS + 1000 * US, s.steps().get(0).startEpochNanos());
        assertEquals(1000 * US, s.steps().get(0).durationNanos());
        assertEquals(0, s.rank());
        assertEquals(2, s.worldSize());
        assertEquals("kineto", s.format());
    }

    @Test
    public void unknownCategoriesAreKeptAndCounted() throws IOException {
        TraceSummary s = read(Variant.MODERN, 0, ".json");
        assertEquals(1, s.unknownEvents());
        assertEquals(Long.valueOf(1), s.categories().get("mystery_cat"));
        assertEquals(Long.valueOf(1), s.categories().get("gpu_user_annotation"));
        assertEquals(Long.valueOf(6), s.categories().get("cuda_runtime"));
        assertEquals(Long.valueOf(6), s.categories().get("kernel"));
        assertEquals(Long.valueOf(1), s.categories().get("gpu_memcpy"));
    }

    @Test
    public void kernelViewHasGeometryOccupancyAndTensorCores() throws IOException {
        TraceSummary s = read(Variant.MODERN, 0, ".json");
        KernelLaunchStats sgemm = s.kernelLaunches().stream().filter(k -> k.name().equals("volta_sgemm_128x64_nn"))
                .findFirst().orElseThrow();
        assertEquals("grid [162,1,1] block [128,1,1] regs 64 smem 4096", sgemm.geometry());
        assertEquals(25.0, sgemm.meanOccupancyPct(), 1e-9);
        assertEquals(1.5, sgemm.meanBlocksPerSm(), 1e-9);
        assertFalse(sgemm.tensorCores());
        assertTrue(s.kernelLaunches().stream().filter(k -> k.name().contains("xmma")).findFirst().orElseThrow()
                .tensorCores());
    }

    @Test
    public void collectivesWithTheirSizesFromKernelOrOperator() throws IOException {
        for (Variant v : List.of(Variant.MODERN, Variant.CORRELATION_2022, Variant.TB_2021)) {
            TraceSummary s = read(v, 1, ".json");
            assertEquals(v.toString(), List.of(new CollectiveStats("allreduce", 1, 4096, 1, 253 * US)),
                    s.collectives());
        }
    }

    @Test
    public void overlapAsAnalyzeComputesIt() throws IOException {
        TraceSummary s = read(Variant.MODERN, 0, ".json");
        DeviceOverlap o = s.overlap();
        assertEquals(260 * US, o.communicationNanos());
        // the all-reduce [2040, 2300) overlaps the backward GEMM [2310, 2500)? no: it ends before; nothing overlaps
        assertEquals(0, o.overlappedNanos());
        assertEquals("device work: the copy runs within the GEMM", (155 + 25 + 190 + 20) * US, o.computeNanos());
        assertEquals("one device, two steps", 2000 * US, o.stepNanos());
    }

    @Test
    public void legacyArrayJoinsDeviceWorkThroughItsFlows() throws IOException {
        TraceSummary s = read(Variant.LEGACY, 0, ".json");
        assertEquals("legacy", s.format());
        assertEquals(164 * US, op(s, "aten::addmm").deviceSelfNanos());
        assertEquals("no runtime calls: self is the time less children", 70 * US, op(s, "aten::addmm").selfNanos());
        assertEquals(190 * US, op(s, "aten::mm").deviceSelfNanos());
        assertEquals(20 * US, op(s, "CUDAGraph.replay").deviceSelfNanos());
        assertEquals(2, s.steps().size());
        assertEquals(-1, s.rank());
    }

    @Test
    public void aDamagedFileIsNamedWithItsByteOffset() throws IOException {
        Path good = KinetoVariants.write(tmp.getRoot().toPath().resolve("good.json"), Variant.MODERN, 0);
        byte[] bytes = Files.readAllBytes(good);
        Path cut = tmp.getRoot().toPath().resolve("cut.json");
        Files.write(cut, java.util.Arrays.copyOf(bytes, 700));
        try {
            TraceReader.summary(cut);
            fail("a cut file was read");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith(cut + " is damaged at byte 700"));
        }
        byte[] broken = bytes.clone();
        int at = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).indexOf("\"aten::relu\"");
        broken[at] = '!';
        Path bad = tmp.getRoot().toPath().resolve("bad.json");
        Files.write(bad, broken);
        try {
            TraceReader.summary(bad);
            fail("a broken file was read");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith(bad + " is damaged at byte " + (at + 1)));
        }
    }

    @Test
    public void traceIterationsAreStepsWhenThereIsNoProfilerStep() throws IOException {
        Path f = tmp.getRoot().toPath().resolve("iter.json");
        Files.writeString(f, "{\"traceEvents\": ["
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,"
                + "\"args\":{\"Trace iteration\":0}},"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,"
                + "\"args\":{\"Trace iteration\":1}},"
                + "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":32,\"dur\":8,"
                + "\"args\":{\"Trace iteration\":1}}]}");
        TraceSummary s = TraceReader.summary(f);
        assertEquals(2, s.steps().size());
        assertEquals(0, s.steps().get(0).step());
        assertEquals(5 * US, s.steps().get(0).durationNanos());
        assertEquals(20 * US, s.steps().get(1).durationNanos());
    }
}
