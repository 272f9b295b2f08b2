package dev.vantage.trace.engine;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.trace.engine.read.TraceReader;

/** Memory events by operator, blocks matched by address, and bytes held per category, from a trace written here. */
public class MemoryEventsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static String op(String name, long ts, long dur) {
        return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts
                + ", \"dur\": " + dur + ", \"args\": {\"External id\": " + ts + "}}";
    }

    private static String memory(long ts, long addr, long bytes, long total, String category) {
        return "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1,"
                + " \"tid\": 1, \"ts\": " + ts + ", \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": " + addr
                + ", \"Bytes\": " + bytes + ", \"Total Allocated\": " + total + ", \"Total Reserved\": 4096"
                + (category == null ? "" : ", \"Category\": \"" + category + "\"") + "}}";
    }

    @Test
    public void eachAllocationIsCountedToItsOperatorAndMatchedToItsFree() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("memory.pt.trace.json");
        Files.writeString(file, "{\"traceEvents\": [" + String.join(", ",
                op("aten::empty", 10, 10), memory(12, 100, 1000, 1000, "PARAMETER"),
                op("aten::mm", 30, 10), memory(32, 200, 300, 1300, "ACTIVATION"),
                memory(35, 300, 200, 1500, "ACTIVATION"),
                op("aten::relu", 50, 10), memory(55, 200, -300, 1200, "ACTIVATION")) + "]}");
        try (AnalysedTrace trace = TraceReader.read(file)) {
            MemoryEvents m = MemoryEvents.of(trace);
            List<List<Object>> ops = m.byOperator();
            assertEquals(3, ops.size());
            String device = (String) ops.get(0).get(0);
            // calls, allocations, bytes, frees, bytes, increase; and with children (none here)
            assertEquals(List.of(device, "aten::empty", 1L, 1L, 1000L, 0L, 0L, 1000L, 1L, 1000L, 1000L), ops.get(0));
            assertEquals(List.of(device, "aten::mm", 1L, 2L, 500L, 0L, 0L, 500L, 2L, 500L, 500L), ops.get(1));
            assertEquals(List.of(device, "aten::relu", 1L, 0L, 0L, 1L, 300L, -300L, 0L, 0L, -300L), ops.get(2));
            // the block of 300 bytes lived from 32 to 55 us; the others are never freed
            List<List<Object>> blocks = m.blocks();
            assertEquals(3, blocks.size());
            assertEquals(Arrays.asList(device, "aten::empty", 1000L, 2_000L, null, null), blocks.get(0));
            assertEquals(Arrays.asList(device, "aten::mm", 300L, 22_000L, 45_000L, 23_000L), blocks.get(1));
            assertNull(blocks.get(2).get(4));
            // held per category after each event: PARAMETER, ACTIVATION, none
            assertEquals(List.of("PARAMETER", "ACTIVATION", "(no category)"), m.categories());
            List<long[]> curve = m.curves().get(device);
            assertEquals(4, curve.size());
            assertEquals(List.of(45_000L, 1000L, 200L, 0L), Arrays.stream(curve.get(3)).boxed().toList());
        }
    }
}
