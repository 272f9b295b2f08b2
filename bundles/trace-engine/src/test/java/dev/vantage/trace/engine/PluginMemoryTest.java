package dev.vantage.trace.engine;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.trace.engine.read.TraceReader;

/**
 * The engine's memory statistics and memory events against the TensorBoard plugin's own parser, run on the plugin's
 * test trace and on one of its ResNet-50 samples ({@code memory/README.md} says how the figures were made).
 */
public class PluginMemoryTest {

    private static final String DIR = "/dev/vantage/trace/engine/memory/";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static JsonNode plugin(String trace) throws Exception {
        try (InputStream in = PluginMemoryTest.class.getResourceAsStream(DIR + "plugin_memory.json")) {
            return new ObjectMapper().readTree(in).get(trace);
        }
    }

    private MemoryEvents read(String name) throws Exception {
        Path file = tmp.getRoot().toPath().resolve(name);
        try (InputStream in = PluginMemoryTest.class.getResourceAsStream(DIR + name)) {
            Files.copy(in, file);
        }
        try (AnalysedTrace trace = TraceReader.read(file)) {
            return MemoryEvents.of(trace);
        }
    }

    /** The plugin's name of a device: CPU, GPU0. */
    private static String device(String engine) {
        return engine.startsWith("cuda") ? "GPU" + engine.substring(engine.indexOf(':') + 1) : "CPU";
    }

    /** Every row of the engine's statistics is the plugin's, figure by figure, and the plugin has no other row. */
    private static void sameStatistics(JsonNode plugin, MemoryEvents engine) {
        int rows = 0;
        for (Iterator<String> d = plugin.get("devices").fieldNames(); d.hasNext();) {
            rows += plugin.get("devices").get(d.next()).path("statistics").size();
        }
        assertEquals(rows, engine.byOperator().size());
        for (List<Object> row : engine.byOperator()) {
            String where = row.toString();
            JsonNode p = plugin.get("devices").get(device((String) row.get(0))).get("statistics").get((String) row.get(1));
            assertTrue("the plugin has no row " + where, p != null);
            assertEquals(where, p.get("calls").asLong(), row.get(2));
            assertEquals(where, p.get("self_allocations").asLong(), row.get(3));
            assertEquals(where, p.get("self_allocated").asLong(), row.get(4));
            assertEquals(where, p.get("self_frees").asLong(), row.get(5));
            assertEquals(where, p.get("self_freed").asLong(), row.get(6));
            assertEquals(where, p.get("self_increase").asLong(), row.get(7));
            assertEquals(where, p.get("allocations").asLong(), row.get(8));
            assertEquals(where, p.get("allocated").asLong(), row.get(9));
            assertEquals(where, p.get("increase").asLong(), row.get(10));
        }
    }

    @Test
    public void statisticsAndEventsAreThePluginsForItsOwnTestTrace() throws Exception {
        JsonNode plugin = plugin("plugin_memory_view.pt.trace.json");
        MemoryEvents engine = read("plugin_memory_view.pt.trace.json");
        sameStatistics(plugin, engine);
        // the plugin test's own expectation, GPU0's aten::liner: self increase 20, allocated 130 in 3, 360 in 7 with
        // its children
        List<Object> liner = engine.byOperator().stream().filter(r -> r.get(0).equals("cuda:0")
                && r.get(1).equals("aten::liner")).findFirst().orElseThrow();
        assertEquals(List.of("cuda:0", "aten::liner", 1L, 3L, 130L, 2L, 110L, 20L, 7L, 360L, 20L), liner);
        // the memory events table, summed per device and operator as the plugin's rows are
        assertTrue(engine.addressed());
        Map<String, long[]> sums = new HashMap<>();
        for (List<Object> b : engine.blocks()) {
            long[] s = sums.computeIfAbsent(device((String) b.get(0)) + " " + b.get(1), k -> new long[6]);
            s[0]++;
            s[1] += (Long) b.get(2);
            if (b.get(5) != null) {
                s[2]++;
                s[3] += (Long) b.get(5);
            } else if (b.get(4) == null) {
                s[4]++;
            } else {
                s[5]++;
            }
        }
        int rows = 0;
        for (Iterator<Map.Entry<String, JsonNode>> d = plugin.get("devices").fields(); d.hasNext();) {
            Map.Entry<String, JsonNode> device = d.next();
            for (Iterator<Map.Entry<String, JsonNode>> o = device.getValue().get("events").fields(); o.hasNext();) {
                Map.Entry<String, JsonNode> op = o.next();
                String key = device.getKey() + " " + op.getKey();
                JsonNode p = op.getValue();
                long[] s = sums.get(key);
                assertTrue("no memory events of " + key, s != null);
                assertEquals(key, p.get("rows").asLong(), s[0]);
                assertEquals(key, p.get("bytes").asLong(), s[1]);
                assertEquals(key, p.get("freed").asLong(), s[2]);
                assertEquals(key, Math.round(p.get("held_us").asDouble() * 1000), s[3]);
                assertEquals(key, p.get("never_freed").asLong(), s[4]);
                assertEquals(key, p.get("never_allocated").asLong(), s[5]);
                rows++;
            }
        }
        assertEquals(rows, sums.size());
        // the block of 100 bytes aten::to allocated at 515 us (505 from the trace's start) and freed at 796
        assertTrue(engine.blocks().contains(java.util.Arrays.asList("cuda:0", "aten::to", 100L, 505_000L, 786_000L,
                281_000L)));
        // six events lie in no counted operator: in a step only, or in the DataLoader
        assertEquals(6, engine.outsideOperators());
    }

    @Test
    public void statisticsAreThePluginsForItsResnetSample() throws Exception {
        JsonNode plugin = plugin("worker0.1623143089861.pt.trace.json.gz");
        MemoryEvents engine = read("worker0.1623143089861.pt.trace.json.gz");
        sameStatistics(plugin, engine);
        assertEquals(56, engine.byOperator().size());
        // torch 1.9 wrote no addresses: nothing to match, as the plugin's table is empty
        assertFalse(engine.addressed());
        assertEquals(List.of(), engine.blocks());
        assertEquals(List.of(), engine.categories());
    }
}
