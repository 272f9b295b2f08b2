package dev.vantage.exporter.contract;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * What every {@link TraceExporter} must do, run over each one by a subclass in its module. The subclass supplies
 * the exporter and reads what it wrote back with an independent parser, returning how many events of the trace it
 * found in the output (or -1 for a format that does not hold events one by one).
 *
 * <p>Run with a small heap ({@code -Xmx256m} in the exporter modules): the 1 M-event trace is generated as it is
 * read, so an exporter that kept every event in memory would fail there.
 */
public abstract class TraceExporterContract {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Returns the exporter under test. */
    protected abstract TraceExporter exporter();

    /**
     * Reads the export back with a parser that is not the exporter's and checks its structure; returns the number
     * of the trace's host and device events found in it, or -1 when the format aggregates them.
     */
    protected abstract long readBack(Path target) throws IOException;

    private Path target(String name) {
        return exporter().defaultTarget(tmp.getRoot().toPath().resolve("out"), name);
    }

    private static FakeTrace everyKind() {
        return new FakeTrace(List.of(
                Ev.host("ProfilerStep#0", EventKind.USER_ANNOTATION, 1, 0, 50_000, 1),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 1_000, 20_000, 2).under(1, 15_000)
                        .withShapes(new long[][] {{8, 16}, {16, 4}}, new String[] {"float", "float"})
                        .withStack(List.of("a.B.c(B.java:1)")).withSequence(3, -1),
                Ev.memory(1, 2_000, 3, 4096, 0x40, 2),
                Ev.host("MmBackward0", EventKind.CPU_OP, 2, 30_000, 5_000, 4).withSequence(3, 1),
                Ev.memory(1, 40_000, 5, -4096, 0x40, -1),
                Ev.host("GC: G1 Young Generation (G1 Evacuation Pause)", EventKind.GC, -1, 45_000, 1_000, 6),
                Ev.kernel("mm_kernel", "npu", 0, 3, 5_000, 10_000, 7, 2)),
                List.of(new TraceThread(1, "main", 0), new TraceThread(2, "autograd", 0)),
                List.of(new TraceDevice("npu", 0, true, Map.of("name", "Test NPU"))), Map.of("profile_memory", "1"));
    }

    @Test
    public void exportsAnEmptyTrace() throws IOException {
        Path target = target("empty");
        exporter().export(new FakeTrace(List.of(), List.of(), List.of(), Map.of()), target);
        assertTrue(Files.exists(target));
        long found = readBack(target);
        assertTrue("events found in an empty trace: " + found, found <= 0);
    }

    @Test
    public void exportsEveryEventKind() throws IOException {
        Path target = target("kinds");
        exporter().export(everyKind(), target);
        long found = readBack(target);
        assertTrue("found " + found, found == -1 || found >= 5);
    }

    @Test
    public void exportsHostileNames() throws IOException {
        String hostile = "q\"uote \\back\nline é中 \u0001ctl, comma; semi";
        Path target = target("hostile");
        exporter().export(new FakeTrace(List.of(
                Ev.host("ProfilerStep#0", EventKind.USER_ANNOTATION, 1, 0, 10_000, 1),
                Ev.host(hostile, EventKind.CPU_OP, 1, 1_000, 2_000, 2).under(1, 2_000)),
                List.of(new TraceThread(1, hostile, 0)), List.of(), Map.of()), target);
        long found = readBack(target);
        assertTrue("found " + found, found == -1 || found >= 1);
        assertTrue(containsText(target, "uote"));
    }

    @Test
    public void exportsAMillionEventsInBoundedMemory() throws IOException {
        Path target = target("million");
        exporter().export(new GeneratedTrace(1_000_000), target);
        long found = readBack(target);
        assertTrue("found " + found, found == -1 || found == 1_000_000);
    }

    @Test
    public void aTargetThatCannotBeCreatedIsAnErrorAndLeavesNothing() throws IOException {
        Path file = tmp.newFile("a-file").toPath();
        Path target = exporter().defaultTarget(file, "x");
        assertThrows(IOException.class, () -> exporter().export(everyKind(), target));
        try (Stream<Path> s = Files.list(tmp.getRoot().toPath())) {
            assertEquals(List.of(file), s.toList());
        }
    }

    private static boolean containsText(Path target, String text) throws IOException {
        try (Stream<Path> s = Files.walk(target)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                byte[] bytes = Files.readAllBytes(p);
                String content = p.toString().endsWith(".gz")
                        ? new String(new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(bytes))
                                .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
                if (content.contains(text)) {
                    return true;
                }
            }
        }
        return false;
    }
}
