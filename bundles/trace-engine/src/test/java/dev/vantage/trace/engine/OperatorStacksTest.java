package dev.vantage.trace.engine;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.trace.engine.read.TraceReader;

/** torch's {@code Call stack} read back: ops grouped by name and their innermost five frames. */
public class OperatorStacksTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static String op(String name, long ts, long dur, String stack) {
        return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts
                + ", \"dur\": " + dur + ", \"args\": {\"External id\": " + ts
                + (stack == null ? "" : ", \"Call stack\": \"" + stack + "\"") + "}}";
    }

    @Test
    public void opsOfOneNameSplitByTheirInnermostFiveFrames() throws Exception {
        String deep = "a.py(1): f;a.py(2): g;a.py(3): h;a.py(4): i;a.py(5): j;a.py(6): k";
        String other = "b.py(9): train;b.py(10): main";
        Path file = tmp.getRoot().toPath().resolve("stacks.pt.trace.json");
        Files.writeString(file, "{\"traceEvents\": [" + String.join(", ",
                op("aten::mm", 10, 5, deep),
                op("aten::mm", 20, 7, deep.replace("a.py(6): k", "a.py(7): other caller")),
                op("aten::mm", 30, 11, other),
                op("aten::add", 50, 3, null)) + "]}");
        try (AnalysedTrace trace = TraceReader.read(file)) {
            assertTrue(trace.data().hasStacks());
            List<List<Object>> rows = OperatorStacks.rows(2, trace);
            // the first two differ only in their sixth frame: one row of two calls; aten::add recorded no stack
            assertEquals(rows.toString(), 2, rows.size());
            // most self time first: the two calls of 5 and 7 us, then the one of 11
            List<Object> b = rows.get(1);
            assertEquals(List.of(2, "aten::mm", "b.py(9): train; b.py(10): main", 1L, 11_000L, 11_000L, 0L, 0L), b);
            List<Object> a = rows.get(0);
            assertEquals("a.py(1): f; a.py(2): g; a.py(3): h; a.py(4): i; a.py(5): j", a.get(2));
            assertEquals(2L, a.get(3));
            assertEquals(12_000L, a.get(4));
        }
        Path plain = tmp.getRoot().toPath().resolve("plain.pt.trace.json");
        Files.writeString(plain, "{\"traceEvents\": [" + op("aten::mm", 10, 5, null) + "]}");
        try (AnalysedTrace trace = TraceReader.read(plain)) {
            assertEquals(List.of(), OperatorStacks.rows(0, trace));
        }
    }
}
