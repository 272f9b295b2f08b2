package dev.vantage.exporter.perfetto.compare;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Asserts that a trace's Chrome JSON export and its {@code .pftrace} export show the same thing: the same rows
 * (process and thread names), on each the same slices and instants with the same names, categories, times to the
 * nanosecond and arguments, the same nesting, the same flows, and the same memory totals (as {@code [memory]}
 * events there, as counter values here), and the Chrome file's metadata among the trace attributes.
 */
public final class ExportComparison {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What was compared. */
    public record Summary(int rows, int slices, int instants, long ac2g, long fwdbwd, int memoryValues,
            int splitRows) {
    }

    private ExportComparison() {
    }

    public static Summary assertSameTrace(Path chromeFile, Path perfettoFile) throws IOException {
        return assertSame(ChromeTraceModel.read(chromeFile), PerfettoTraceModel.read(perfettoFile));
    }

    public static Summary assertSame(ExportModel chrome, ExportModel perfetto) throws IOException {
        Map<String, List<ExportModel.Event>> c = chrome.rows();
        Map<String, List<ExportModel.Event>> p = perfetto.rows();
        assertEquals("rows", c.keySet(), p.keySet());
        int slices = 0;
        int instants = 0;
        for (String row : c.keySet()) {
            List<ExportModel.Event> ce = c.get(row);
            List<ExportModel.Event> pe = p.get(row);
            assertEquals("events on " + row, keys(ce), keys(pe));
            for (int i = 0; i < ce.size(); i++) {
                ExportModel.Event a = ce.get(i);
                ExportModel.Event b = pe.get(i);
                assertEquals("category of " + a.key(), a.category(), b.category());
                assertEquals("arguments of " + a.key(), normalized(a.args()), normalized(b.args()));
                if (a.instant()) {
                    instants++;
                } else {
                    slices++;
                }
            }
        }
        // nesting: where no slice overlaps another partly, the .pftrace states exactly the nesting a viewer derives
        // from the Chrome file's times; elsewhere each stated parent still contains its child
        Map<String, String> derived = chrome.containmentParents();
        Map<String, ExportModel.Event> byKey = new TreeMap<>();
        p.values().forEach(list -> list.forEach(e -> byKey.put(e.key(), e)));
        for (Map.Entry<String, ExportModel.Event> e : byKey.entrySet()) {
            String stated = perfetto.statedParents.get(e.getKey());
            if (!perfetto.splitRows.contains(e.getValue().row())) {
                assertEquals("parent of " + e.getKey(), derived.get(e.getKey()), stated);
            } else if (stated != null) {
                ExportModel.Event parent = byKey.get(stated);
                assertTrue(stated + " contains " + e.getKey(), parent.startNanos() <= e.getValue().startNanos()
                        && e.getValue().endNanos() <= parent.endNanos());
            }
        }
        assertEquals("flows", sortedFlows(chrome.flows()), sortedFlows(perfetto.flows()));
        List<ExportModel.MemoryTotals> cm = new ArrayList<>(chrome.memory());
        List<ExportModel.MemoryTotals> pm = new ArrayList<>(perfetto.memory());
        Comparator<ExportModel.MemoryTotals> byTime = Comparator.comparingLong(ExportModel.MemoryTotals::timeNanos)
                .thenComparingLong(ExportModel.MemoryTotals::allocated)
                .thenComparingLong(ExportModel.MemoryTotals::reserved);
        cm.sort(byTime);
        pm.sort(byTime);
        assertEquals("memory totals", cm, pm);
        for (Map.Entry<String, String> m : chrome.metadata().entrySet()) {
            String key = m.getKey();
            if (!key.equals("schemaVersion") && !key.equals("displayTimeUnit")
                    && !key.equals("baseTimeNanoseconds")) {
                assertEquals("metadata " + key, m.getValue(), perfetto.metadata().get(key));
            }
        }
        long ac2g = chrome.flows().stream().filter(f -> f.category().equals("ac2g")).count();
        long fwdbwd = chrome.flows().stream().filter(f -> f.category().equals("fwdbwd")).count();
        return new Summary(c.size(), slices, instants, ac2g, fwdbwd, cm.size(), perfetto.splitRows.size());
    }

    private static List<String> keys(List<ExportModel.Event> events) {
        List<String> keys = new ArrayList<>();
        events.forEach(e -> keys.add(e.key()));
        return keys;
    }

    private static Map<String, String> normalized(Map<String, Object> args) throws IOException {
        Map<String, String> m = new TreeMap<>();
        for (Map.Entry<String, Object> a : args.entrySet()) {
            m.put(a.getKey(), JSON.writeValueAsString(a.getValue()));
        }
        return m;
    }

    private static List<String> sortedFlows(List<ExportModel.Flow> flows) {
        List<String> list = new ArrayList<>();
        flows.forEach(f -> list.add(f.category() + ": " + f.from() + " -> " + f.to()));
        list.sort(null);
        return list;
    }
}
