package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.vantage.trace.engine.read.DamagedTraceException;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.read.TraceRepairs;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.chrome.internal.ChromeTraceExporter;
import dev.vantage.exporter.contract.GeneratedTrace;
import dev.vantage.exporter.perfetto.internal.PerfettoTraceExporter;

/**
 * A {@code .pftrace} is read in the heap its Chrome JSON is read in, whatever its size: 400,000 events in a JVM of
 * {@code -Xmx64m}, where the reader that held the whole trace failed at 242,000 events in {@code -Xmx128m}. The read
 * runs in a JVM of its own ({@link #main}), so the heap is the one given.
 */
public class PerfettoHeapTest {

    private static final int EVENTS = 400_000;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Reads the trace given and prints its event count. */
    public static void main(String[] args) throws IOException {
        System.out.println(TraceReader.summary(Path.of(args[0])).events());
    }

    private static String readInSmallHeap(Path trace) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx64m", "-cp", System.getProperty("java.class.path"), PerfettoHeapTest.class.getName(),
                trace.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
        }
        assertEquals(out, 0, p.exitValue());
        return out.strip();
    }

    @Test
    public void aBigPftraceReadsInTheHeapItsChromeJsonReadsIn() throws Exception {
        GeneratedTrace trace = new GeneratedTrace(EVENTS);
        Path pftrace = tmp.getRoot().toPath().resolve("big.pftrace");
        Path json = tmp.getRoot().toPath().resolve("big.trace.json.gz");
        new PerfettoTraceExporter().export(trace, pftrace);
        new ChromeTraceExporter().export(trace, json);
        String fromJson = readInSmallHeap(json);
        assertEquals("the same events from both files", fromJson, readInSmallHeap(pftrace));
    }
}
