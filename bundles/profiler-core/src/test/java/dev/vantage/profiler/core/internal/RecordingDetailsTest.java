package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.testcaller.Caller;

/** What a profile records about each op when asked: shapes, FLOPs, stacks and autograd links. */
public class RecordingDetailsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Rule
    public final TestProfiler active = new TestProfiler(1_000_000);
    private final ProfilerComponent profiler = active.component();

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static ProfilerEvent named(List<ProfilerEvent> events, String name) {
        return events.stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    public void recordsInputShapesAndTypesAndGroupsByThem() {
        Profile p = profiler.profile().recordShapes(true).start();
        TestOp.of("aten::mm", new long[] {2, 3}, new long[] {3, 4}).call(() -> spin(1000));
        TestOp.of("aten::mm", new long[] {5, 3}, new long[] {3, 4}).call(() -> spin(1000));
        TestOp.of("aten::mm", new long[] {2, 3}, new long[] {3, 4}).call(() -> spin(1000));
        TestOp.of("aten::add", new long[] {2, 3}, new long[] {}).call(() -> spin(1000));
        p.stop();
        ProfilerEvent mm = p.events().get(0);
        assertEquals(List.of(List.of(2L, 3L), List.of(3L, 4L)), mm.inputShapes());
        assertEquals(List.of("float", "float"), mm.inputTypes());
        assertEquals(List.of("float", "Scalar"), p.events().get(3).inputTypes());

        Map<String, Long> byShape = new HashMap<>();
        for (EventAverage r : p.keyAverages(true, 0).rows()) {
            byShape.put(r.key() + " " + r.inputShapes(), r.count());
        }
        assertEquals(Map.of("aten::mm [[2, 3], [3, 4]]", 2L, "aten::mm [[5, 3], [3, 4]]", 1L,
                "aten::add [[2, 3], []]", 1L), byShape);
        assertEquals(List.of("aten::mm", "aten::add"), p.keyAverages().rows().stream().map(EventAverage::key)
                .toList());
        assertTrue(p.keyAverages(true, 0).table(SortKey.COUNT, -1).contains("Input Shapes"));
        assertFalse(p.keyAverages().table(SortKey.COUNT, -1).contains("Input Shapes"));

        EventCursor c = p.trace().events();
        assertTrue(c.next());
        assertEquals(2, c.inputCount());
        assertEquals(3, c.inputShape(0)[1]);
    }

    @Test
    public void countsFlopsByFormulaWithoutExposingShapesUnasked() {
        Profile p = profiler.profile().withFlops(true).start();
        TestOp.of("aten::mm", new long[] {2, 3}, new long[] {3, 4}).call(() -> spin(1000));
        TestOp.of("aten::add", new long[] {2, 3}, new long[] {2, 3}).call(() -> spin(1000));
        TestOp.of("aten::relu", new long[] {2, 3}).call(() -> spin(1000));
        p.stop();
        assertEquals(2 * 2 * 3 * 4, p.events().get(0).flops());
        assertEquals(6, p.events().get(1).flops());
        assertEquals(0, p.events().get(2).flops());
        assertEquals(List.of(), p.events().get(0).inputShapes());
        assertEquals(54, p.totalAverage().flops());
        // the FLOPs column is scaled by the smallest count: 6 FLOPs -> plain FLOPs, 3 decimals, "--" for none
        String table = p.keyAverages().table(SortKey.COUNT, -1);
        assertTrue(table, table.contains("Total FLOPs"));
        assertTrue(table, table.lines().anyMatch(l -> l.contains("aten::mm") && l.contains("  48.000  ")));
        assertTrue(table, table.lines().anyMatch(l -> l.contains("aten::relu") && l.trim().endsWith("--")));
    }

    @Test
    public void recordsTheCallersStackAndExportsCollapsedStacks() throws Exception {
        Profile p = profiler.profile().withStack(true).start();
        Caller.call(() -> TestOp.of("aten::mm").call(() -> spin(50_000)));
        try (RecordFunction scope = RecordFunction.scope("annotated")) {
            spin(1000);
        }
        p.stop();
        ProfilerEvent mm = p.events().get(0);
        // the profiler's own frames (here also this test's) are hidden; the caller's frame comes first
        assertTrue(mm.stack().toString(), mm.stack().get(0).startsWith(
                "dev.vantage.testcaller.Caller.call(Caller.java:"));
        assertTrue(mm.stack().toString(), mm.stack().stream().noneMatch(f -> f.startsWith("dev.vantage.profiler.")
                || f.startsWith("java.")));
        assertTrue(mm.stack().size() <= StackTable.MAX_FRAMES);

        KeyAverages byFrame = p.keyAverages(false, 1);
        assertEquals(List.of(mm.stack().get(0)), byFrame.rows().get(0).stack());
        String table = byFrame.table(SortKey.COUNT, -1);
        assertTrue(table, table.contains("Source Location"));

        Path file = tmp.getRoot().toPath().resolve("mm.stacks");
        p.exportStacks(file, StackMetric.SELF_CPU_TIME_TOTAL);
        List<String> lines = Files.readAllLines(file);
        assertEquals("only the op has a stack; the annotation has none", 1, lines.size());
        String line = lines.get(0);
        assertTrue(line, line.matches("[^ ]+;aten::mm \\d+"));
        long micros = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
        assertEquals(mm.durationNanos() / 1000, micros);
        String[] frames = line.substring(0, line.lastIndexOf(' ')).split(";");
        assertEquals("outermost frame first", mm.stack().get(mm.stack().size() - 1), frames[0]);
    }

    @Test
    public void exportStacksNeedsStacks() {
        Profile p = profiler.profile().start();
        p.stop();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> p.exportStacks(tmp.getRoot().toPath().resolve("x"), StackMetric.SELF_CPU_TIME_TOTAL));
        assertEquals("exportStacks needs a profile recorded with withStack(true)", e.getMessage());
    }

    @Test
    public void keepsAutogradLinksOfForwardAndBackwardOps() {
        Profile p = profiler.profile().start();
        new TestOp("aten::mm", new long[0][], 41, -1).call(() -> spin(1000));
        new TestOp("MmBackward0", new long[0][], 41, 7).call(() -> spin(1000));
        p.stop();
        assertEquals(41, p.events().get(0).sequenceNumber());
        assertEquals(-1, p.events().get(0).forwardThreadId());
        assertEquals(41, p.events().get(1).sequenceNumber());
        assertEquals(7, p.events().get(1).forwardThreadId());
        EventCursor c = p.trace().events();
        c.next();
        c.next();
        assertEquals(7, c.forwardThreadId());
    }

    @Test
    public void percentilesAndTopLevelTables() {
        Profile p = profiler.profile().start();
        for (int i = 0; i < 20; i++) {
            try (RecordFunction outer = RecordFunction.scope("outer")) {
                TestOp.of("aten::mm").call(() -> spin(2_000));
            }
        }
        p.stop();
        EventAverage mm = p.keyAverages().rows().get(1);
        long longest = p.events().stream().filter(e -> e.name().equals("aten::mm"))
                .mapToLong(ProfilerEvent::durationNanos).max().orElseThrow();
        assertEquals(longest, mm.maxNanos());
        assertTrue(mm.p50Nanos() <= mm.p99Nanos() && mm.p99Nanos() <= mm.maxNanos());
        assertTrue(mm.p50Nanos() >= 2_000);
        String table = p.keyAverages().table(new TableOptions(SortKey.CPU_TIME_P99, -1, true, false));
        assertTrue(table, table.contains("Dur p50       Dur p99       Dur max"));
        String top = p.keyAverages().table(new TableOptions(SortKey.COUNT, -1, false, true));
        assertTrue(top, top.contains("This report only display top-level ops statistics"));
        assertFalse(top, top.contains("aten::mm"));
        assertTrue(top, top.contains("outer"));
        assertEquals(40, p.totalAverage().count());
        assertEquals("Total", p.totalAverage().key());
    }

    @Test
    public void recordsTheTimeOfEveryStepItStarted() {
        Profile p = profiler.profile().start();
        TestOp.of("a").call(() -> spin(100));
        p.step();
        TestOp.of("b").call(() -> spin(100));
        p.stop();
        assertEquals(0, named(p.events(), "a").step());
        assertEquals(1, named(p.events(), "b").step());
        assertEquals(Set.of(Activity.CPU), profiler.availableActivities());
        assertEquals(EventKind.CPU_OP, named(p.events(), "b").kind());
        assertEquals(new ArrayList<>(), named(p.events(), "b").childIds());
    }
}
