package dev.vantage.trace.engine.read;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import dev.vantage.trace.engine.summary.TraceSummary;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.KernelStats;
import dev.vantage.trace.engine.summary.MemoryCurve;
import dev.vantage.trace.engine.summary.StepStats;

/** The reader against {@link SyntheticTrace}, whose expected numbers are worked out by hand below. */
public class TraceReaderTest {

    private static final long US = 1000;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private TraceSummary read(boolean shuffle, boolean gzip) throws IOException {
        Path file = tmp.getRoot().toPath().resolve("t" + shuffle + gzip + (gzip ? ".trace.json.gz" : ".trace.json"));
        return TraceReader.summary(SyntheticTrace.write(file, "inner", shuffle, gzip));
    }

    private static OpStats op(List<OpStats> ops, String name, String shapes) {
        return ops.stream().filter(o -> o.name().equals(name) && java.util.Objects.equals(o.inputShapes(), shapes))
                .findFirst().orElseThrow(() -> new AssertionError("no op " + name + " " + shapes + " in " + ops));
    }

    private static KernelStats kernel(List<KernelStats> kernels, String name, String op) {
        return kernels.stream().filter(k -> k.name().equals(name) && java.util.Objects.equals(k.op(), op))
                .findFirst().orElseThrow(() -> new AssertionError("no kernel " + name + " " + op + " in " + kernels));
    }

    @Test
    public void takesTracesByNameButNotTheMemoryTimelinesEarlierVersionsWroteBesideThem() {
        for (String trace : List.of("m.trace.json", "m.trace.json.gz", "rank-0.json.gz", "w_1.17.pt.trace.json",
                "m.pftrace", "m.perfetto-trace.gz")) {
            assertTrue(trace, TraceReader.isTraceName(trace));
        }
        for (String other : List.of("m.memory-timeline.json", "m-cycle2.memory-timeline.json.gz",
                "m.memory-timeline.html", "runs.jsonl", "m.stacks", "m-rank0-memory-1795830595.pickle")) {
            assertFalse(other, TraceReader.isTraceName(other));
        }
    }

    @Test
    public void nestsOperatorsByTimeForSelfAndDeviceTimes() throws IOException {
        TraceSummary s = read(false, false);
        // outer [110,160) holds inner [115,135) and inner [140,150): self 50 - 20 - 10; its children launched
        // gemm (30) and the copy (10)
        assertEquals(new OpStats("outer", "cpu_op", null, 1, 20 * US, 50 * US, 0, 40 * US, 50 * US, 50 * US),
                op(s.ops(), "outer", null));
        // inner: 20 less the nested runtime call 5, plus 10; device time of its own launches 30 + 10
        assertEquals(new OpStats("inner", "cpu_op", null, 2, 25 * US, 30 * US, 40 * US, 40 * US, 15 * US, 20 * US),
                op(s.ops(), "inner", null));
        assertEquals(new OpStats("tail", "cpu_op", null, 2, 40 * US, 40 * US, 25 * US, 25 * US, 20 * US, 30 * US),
                op(s.ops(), "tail", null));
        assertEquals(3, operators(s.ops()).size());
        assertEquals("longest total first", List.of("outer", "tail", "inner"),
                operators(s.ops()).stream().map(OpStats::name).toList());
        // the key averages hold the steps, the runtime call and the device work too, as the profile's table does
        assertEquals(1, op(s.ops(), "ProfilerStep#1", null).count());
        assertEquals("user_annotation", op(s.ops(), "ProfilerStep#1", null).kind());
        assertEquals(5 * US, op(s.ops(), "launch", null).selfNanos());
        assertEquals(34 * US, op(s.ops(), "gemm", null).deviceTotalNanos());
    }

    @Test
    public void groupsOperatorsByInputShapeAsTorchPrintsThem() throws IOException {
        TraceSummary s = read(false, false);
        assertEquals(20 * US, op(s.opsByShape(), "inner", "[[4]]").totalNanos());
        assertEquals(10 * US, op(s.opsByShape(), "inner", "[[5]]").totalNanos());
        assertEquals(1, op(s.opsByShape(), "outer", "[[2, 3], []]").count());
        assertEquals(2, op(s.opsByShape(), "tail", "[]").count());
        assertEquals(4, operators(s.opsByShape()).size());
    }

    private static List<OpStats> operators(List<OpStats> rows) {
        return rows.stream().filter(OpStats::isOperator).toList();
    }

    @Test
    public void groupsDeviceWorkByNameAndByLaunchingOperator() throws IOException {
        TraceSummary s = read(false, false);
        assertEquals(new KernelStats("gemm", "kernel", null, 2, 34 * US, 4 * US, 30 * US, 17 * US, 30 * US),
                kernel(s.kernels(), "gemm", null));
        assertEquals("memcpy", kernel(s.kernels(), "Memcpy HtoD", null).type());
        assertEquals("memset", kernel(s.kernels(), "Memset", null).type());
        assertEquals("communication", kernel(s.kernels(), "ncclAllReduce", null).type());
        assertEquals(30 * US, kernel(s.kernelsByOp(), "gemm", "inner").totalNanos());
        assertEquals("no operator has External id 99", 4 * US, kernel(s.kernelsByOp(), "gemm", "").totalNanos());
        assertEquals(10 * US, kernel(s.kernelsByOp(), "Memcpy HtoD", "inner").totalNanos());
        assertEquals(20 * US, kernel(s.kernelsByOp(), "ncclAllReduce", "tail").totalNanos());
    }

    @Test
    public void splitsEachStepIntoTheOverviewCategories() throws IOException {
        TraceSummary s = read(false, false);
        assertEquals(2, s.steps().size());
        // step 1 [100,200): kernel [126,156); copy [150,160) less the kernel: 4; fill [175,180): 5; runtime
        // [120,125): 5; host busy [110,160) + [170,180) = 60 less device and runtime 44: 16; the rest 40
        assertEquals(new StepStats(1, 1_000_000_000_000L + 100 * US, 100 * US, 30 * US, 4 * US, 5 * US, 0,
                5 * US, 16 * US, 40 * US), s.steps().get(0));
        // step 2 [200,250): communication [215,235): 20; host [210,240) less it: 10; the rest 20
        assertEquals(new StepStats(2, 1_000_000_000_000L + 200 * US, 50 * US, 0, 0, 0, 20 * US, 0, 10 * US,
                20 * US), s.steps().get(1));
    }

    @Test
    public void readsMemoryPerDeviceRankAndCounts() throws IOException {
        TraceSummary s = read(false, false);
        assertEquals(3, s.rank());
        assertEquals(4, s.worldSize());
        assertEquals(2, s.memory().size());
        MemoryCurve cpu = s.memory().get(0);
        MemoryCurve npu = s.memory().get(1);
        assertEquals("CPU", cpu.device());
        assertEquals("NPU:0", npu.device());
        assertEquals(3, npu.events());
        assertEquals(300, npu.peakAllocatedBytes());
        assertEquals(2000, npu.peakReservedBytes());
        assertEquals(List.of(new MemoryCurve.Point(1_000_000_000_000L + 111 * US, 100, 1000),
                new MemoryCurve.Point(1_000_000_000_000L + 116 * US, 300, 1000),
                new MemoryCurve.Point(1_000_000_000_000L + 150 * US, 200, 2000)), npu.points());
        assertEquals(50, cpu.peakAllocatedBytes());
        assertEquals("13 complete events and 4 memory events", 17, s.events());
    }

    @Test
    public void givesTheSameSummaryForShuffledAndGzippedFiles() throws IOException {
        TraceSummary plain = read(false, false);
        TraceSummary other = read(true, true);
        assertEquals(plain.ops(), other.ops());
        assertEquals(plain.opsByShape(), other.opsByShape());
        assertEquals(plain.steps(), other.steps());
        assertEquals(plain.memory().get(0), other.memory().get(0));
        assertEquals(plain.kernels(), other.kernels());
        assertNull(plain.ops().get(0).inputShapes());
    }

    @Test
    public void keepsAtMostTheCurveLimitOfMemoryPointsWithTheirPeak() throws IOException {
        Path file = tmp.newFile("many.json").toPath();
        StringBuilder sb = new StringBuilder("{\"traceEvents\": [");
        int n = 5 * TraceReader.MAX_CURVE_POINTS + 3;
        for (int i = 0; i < n; i++) {
            long allocated = i == 7777 ? 1_000_000 : i % 100;
            sb.append(i == 0 ? "" : ",").append("{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":")
                    .append(i).append(",\"args\":{\"Device Type\":13,\"Device Id\":0,\"Total Allocated\":")
                    .append(allocated).append(",\"Total Reserved\":2000000}}");
        }
        Files.writeString(file, sb.append("]}").toString());
        MemoryCurve m = TraceReader.summary(file).memory().get(0);
        assertEquals("MPS:0", m.device());
        assertEquals(n, m.events());
        assertEquals(TraceReader.MAX_CURVE_POINTS, m.points().size());
        assertEquals(1_000_000, m.peakAllocatedBytes());
        assertTrue(m.points().stream().anyMatch(p -> p.allocatedBytes() == 1_000_000));
    }

    @Test
    public void convertsKinetoMicrosecondsToNanosecondsExactly() throws IOException {
        assertEquals(1_795_453_279_678_145_952L, TraceReader.nanos("1795453279678145.952"));
        assertEquals(1500, TraceReader.nanos("1.5"));
        assertEquals(12_000, TraceReader.nanos("12"));
        assertEquals(-3250, TraceReader.nanos("-3.25"));
        assertEquals(1_000_000, TraceReader.nanos("1e3"));
        assertEquals(2, TraceReader.nanos("0.0015"));
    }

    @Test
    public void namesTheFileOfATraceItCannotRead() throws IOException {
        Path notJson = tmp.newFile("broken.trace.json").toPath();
        Files.writeString(notJson, "{\"traceEvents\": [ {\"ph\": ");
        Path noEvents = tmp.newFile("empty.trace.json").toPath();
        Files.writeString(noEvents, "{\"schemaVersion\": 1}");
        for (Path p : List.of(notJson, noEvents)) {
            try {
                TraceReader.summary(p);
                fail("read " + p);
            } catch (IOException e) {
                assertTrue(e.getMessage(), e.getMessage().startsWith(p.toString()
                        + (p == notJson ? " is damaged at byte 25: an event cut off by the end of the file, and no"
                                + " readable event in it" : " is damaged: it is not a Chrome trace")));
            }
        }
    }
}
