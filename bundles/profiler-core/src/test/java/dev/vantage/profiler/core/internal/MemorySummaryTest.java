package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

/** torch's {@code memory_summary()} layout, checked against rows written out by hand. */
public class MemorySummaryTest {

    private static Map<String, Long> stats() {
        Map<String, Long> v = new HashMap<>();
        v.put("allocated_bytes.all.current", 1L << 20);
        v.put("allocated_bytes.all.peak", 3L << 19);
        v.put("allocated_bytes.all.allocated", 5L << 30);
        v.put("allocated_bytes.all.freed", 1000L);
        v.put("allocated_bytes.large_pool.current", 1L << 19);
        v.put("allocation.all.current", 12L);
        v.put("allocation.all.allocated", 2_500_000L);
        v.put("num_ooms", 2L);
        v.put("num_alloc_retries", 7L);
        return v;
    }

    @Test
    public void everyLineIsSeventyFiveCharactersBetweenBars() {
        List<String> lines = MemorySummary.format("npu:0", stats(), false).lines().toList();
        for (String l : lines) {
            assertEquals(l, 77, l.length());
            assertTrue(l, l.startsWith("|") && l.endsWith("|"));
        }
        assertEquals("|" + "=".repeat(75) + "|", lines.get(0));
        // title, OOM line, header, 9 statistics x (rule + 3 rows), 2 oversize x (rule + row), closing rule
        assertEquals(6 + 9 * 4 + 2 * 2 + 1, lines.size());
    }

    @Test
    public void rowsShareTheUnitOfTheirFirstValueAsTorchScalesThem() {
        String text = MemorySummary.format("npu:0", stats(), false);
        assertTrue(text, text.contains(
                "| Allocated memory      |   1024 KiB |   1536 KiB |   5120 MiB |   1000 B   |"));
        assertTrue(text, text.contains(
                "|       from large pool |    512 KiB |      0 KiB |      0 MiB |      0 B   |"));
        assertTrue(text, text.contains(
                "| Allocations           |      12    |       0    |    2500 K  |       0    |"));
        assertTrue(text, text.contains("NPU OOMs: 2 "));
        assertTrue(text, text.contains("device malloc retries: 7 "));
        assertTrue(text, text.contains("Vantage NPU memory summary, device ID 0"));
        assertTrue(text, text.contains("| NPU reserved memory   |"));
    }

    @Test
    public void abbreviatedLeavesOutThePoolRows() {
        String text = MemorySummary.format("cpu", stats(), true);
        assertTrue(text, !text.contains("from large pool"));
        assertTrue(text, text.contains("Vantage CPU memory summary, device ID host"));
        assertEquals(6 + 9 * 2 + 2 * 2 + 1, text.lines().count());
    }
}
