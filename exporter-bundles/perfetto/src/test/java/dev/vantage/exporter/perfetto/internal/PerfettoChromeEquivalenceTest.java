package dev.vantage.exporter.perfetto.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.chrome.internal.ChromeTraceExporter;
import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.exporter.contract.GeneratedTrace;
import dev.vantage.exporter.perfetto.compare.ExportComparison;
import dev.vantage.perfetto.format.PerfettoTrace;
import dev.vantage.perfetto.format.PerfettoTraceReader;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * One trace exported both ways, read back (the Chrome JSON with Jackson, the {@code .pftrace} with the generated
 * classes) and compared: rows, events, arguments, nesting, flows and memory totals.
 */
public class PerfettoChromeEquivalenceTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private ExportComparison.Summary exportBoth(Trace trace) throws IOException {
        Path chrome = tmp.getRoot().toPath().resolve("t.trace.json.gz");
        Path perfetto = tmp.getRoot().toPath().resolve("t.pftrace");
        new ChromeTraceExporter().export(trace, chrome);
        new PerfettoTraceExporter().export(trace, perfetto);
        return ExportComparison.assertSameTrace(chrome, perfetto);
    }

    /** Steps first, then each thread's ops, then device work: the order the profiler's cursor yields. */
    static FakeTrace training() {
        return new FakeTrace(List.of(
                Ev.host("ProfilerStep#1", EventKind.USER_ANNOTATION, 1, 0, 50_000, 1),
                Ev.host("ProfilerStep#2", EventKind.USER_ANNOTATION, 1, 50_000, 40_000, 2),
                Ev.host("aten::linear", EventKind.CPU_OP, 1, 1_000, 20_000, 3).under(1, 5_000)
                        .withShapes(new long[][] {{8, 16}, {16, 4}, {}}, new String[] {"float", "float", "Scalar"})
                        .withSequence(7, -1),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 2_000, 15_000, 4).under(3, 12_000)
                        .withStack(List.of("a.B.c(B.java:1)", "a.B.d(B.java:2)")),
                Ev.host("npuLaunchKernel", EventKind.RUNTIME, 1, 3_000, 2_000, 5).withFlow(900),
                Ev.memory(1, 4_000, 6, 4096, 0x40, 4),
                Ev.host("aten::relu", EventKind.CPU_OP, 1, 51_000, 4_000, 7).under(2, 4_000),
                Ev.host("autograd::engine::evaluate_function: MmBackward0", EventKind.CPU_OP, 2, 60_000, 9_000, 8)
                        .withSequence(7, 1),
                Ev.host("MmBackward0", EventKind.CPU_OP, 2, 61_000, 7_000, 9).under(8, 7_000).withSequence(7, 1),
                Ev.memory(2, 62_000, 10, -4096, 0x40, 9),
                Ev.host("GC: G1 Young Generation", EventKind.GC, -1, 70_000, 1_000, 11),
                Ev.kernel("mm_kernel", "npu", 0, 3, 6_000, 10_000, 12, 4).withFlow(900),
                Ev.kernel("relu_kernel", "npu", 0, 3, 52_000, 1_000, 13, 7),
                Ev.kernel("hcom_allReduce_", "npu", 0, 4, 56_000, 3_000, 14, 7)),
                List.of(new TraceThread(1, "main", 0), new TraceThread(2, "autograd \"engine\"", 0)),
                List.of(new TraceDevice("npu", 0, true, Map.of("name", "Test NPU", "memory", "1024"))),
                Map.of("profile_memory", "1", "rank", "1", "world_size", "2", "distributed_backend", "hccl"));
    }

    @Test
    public void aTrainingTraceShowsTheSameRowsEventsNestingFlowsAndMemoryBothWays() throws IOException {
        ExportComparison.Summary s = exportBoth(training());
        assertEquals(new ExportComparison.Summary(5, 12, 2, 1, 1, 2, 0), s);
    }

    @Test
    public void partlyOverlappingSlicesOfOneThreadGoToALaneOfTheirOwn() throws IOException {
        FakeTrace trace = new FakeTrace(List.of(
                Ev.host("outer", EventKind.USER_ANNOTATION, 1, 0, 10_000, 1),
                Ev.host("overlapping", EventKind.USER_ANNOTATION, 1, 5_000, 10_000, 2),
                Ev.host("inside", EventKind.CPU_OP, 1, 6_000, 1_000, 3),
                Ev.host("after", EventKind.CPU_OP, 1, 16_000, 1_000, 4)),
                List.of(new TraceThread(1, "main", 0)), List.of(), Map.of());
        ExportComparison.Summary s = exportBoth(trace);
        assertEquals(1, s.splitRows());
        Path perfetto = tmp.getRoot().toPath().resolve("t.pftrace");
        PerfettoTrace read = PerfettoTraceReader.read(perfetto);
        PerfettoTrace.Slice overlapping = read.slices().stream().filter(x -> x.name().equals("overlapping"))
                .findFirst().orElseThrow();
        PerfettoTrace.Slice inside = read.slices().stream().filter(x -> x.name().equals("inside")).findFirst()
                .orElseThrow();
        PerfettoTrace.Slice outer = read.slices().stream().filter(x -> x.name().equals("outer")).findFirst()
                .orElseThrow();
        PerfettoTrace.Track lane = read.track(overlapping.trackUuid());
        assertEquals("thread 1 (main) (overlap 1)", lane.name());
        assertEquals(outer.trackUuid(), lane.parentUuid());
        // the first lane where a slice nests takes it; nothing is cut short
        assertEquals(outer.index(), inside.parent());
        assertEquals(10_000, overlapping.durationNanos());
        assertEquals(10_000, outer.durationNanos());
    }

    @Test
    public void aGeneratedTraceWithHostileNamesIsTheSameBothWays() throws IOException {
        ExportComparison.Summary s = exportBoth(new GeneratedTrace(20_000));
        assertEquals(20_000, s.slices() + s.instants());
    }

    @Test
    public void aRepeatedNameCostsAFewBytes() throws IOException {
        Path perfetto = tmp.getRoot().toPath().resolve("g.pftrace");
        new PerfettoTraceExporter().export(new GeneratedTrace(100_000), perfetto);
        long bytes = java.nio.file.Files.size(perfetto);
        assertTrue("bytes per event: " + bytes / 100_000.0, bytes < 100_000L * 60);
    }
}
