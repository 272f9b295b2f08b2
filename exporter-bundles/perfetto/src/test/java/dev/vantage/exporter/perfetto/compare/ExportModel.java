package dev.vantage.exporter.perfetto.compare;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A trace as a viewer shows it, independent of the file format: per thread row (process name / thread name) its
 * slices and instants, the flows between them, the nesting a format states, and the memory totals over time. Built
 * from a Chrome JSON trace by {@link ChromeTraceModel} and from a {@code .pftrace} by {@link PerfettoTraceModel}.
 */
public final class ExportModel {

    /** One slice or instant; {@code key} identifies it across formats. */
    public record Event(String row, String name, String category, long startNanos, long durationNanos,
            boolean instant, Map<String, Object> args) {

        public String key() {
            return row + " | " + name + " @ " + startNanos + " +" + durationNanos + (instant ? " (instant)" : "");
        }

        public long endNanos() {
            return startNanos + durationNanos;
        }
    }

    /** A flow of a category ({@code ac2g}, {@code fwdbwd}) from one event to another, by their keys. */
    public record Flow(String category, String from, String to) {
    }

    /** The memory totals of an allocator after one allocation or free. */
    public record MemoryTotals(long timeNanos, long allocated, long reserved) {
    }

    final Map<String, List<Event>> rows = new TreeMap<>();
    final List<Flow> flows = new ArrayList<>();
    /** Event key to the key of the event it is nested in, as the format states it (null: derive by containment). */
    Map<String, String> statedParents;
    /** Rows the format split into several lanes because their slices overlap. */
    final Set<String> splitRows = new java.util.TreeSet<>();
    final List<MemoryTotals> memory = new ArrayList<>();
    final Map<String, String> metadata = new LinkedHashMap<>();

    void add(Event e) {
        rows.computeIfAbsent(e.row(), k -> new ArrayList<>()).add(e);
    }

    /** Returns the rows with their events, ordered by start, longer first, then name. */
    public Map<String, List<Event>> rows() {
        Map<String, List<Event>> sorted = new TreeMap<>();
        rows.forEach((row, list) -> {
            List<Event> copy = new ArrayList<>(list);
            copy.sort(ORDER);
            sorted.put(row, copy);
        });
        return sorted;
    }

    static final java.util.Comparator<Event> ORDER = (a, b) -> a.startNanos != b.startNanos
            ? Long.compare(a.startNanos, b.startNanos)
            : a.durationNanos != b.durationNanos ? Long.compare(b.durationNanos, a.durationNanos)
            : a.instant != b.instant ? (a.instant ? 1 : -1) : a.name.compareTo(b.name);

    public List<Flow> flows() {
        return flows;
    }

    public List<MemoryTotals> memory() {
        return memory;
    }

    public Map<String, String> metadata() {
        return metadata;
    }

    /**
     * The nesting a viewer derives from times alone, per row: sorted by start (longer first), each event's parent
     * is the innermost open one that contains it.
     */
    Map<String, String> containmentParents() {
        Map<String, String> parents = new HashMap<>();
        rows().forEach((row, list) -> {
            List<Event> stack = new ArrayList<>();
            for (Event e : list) {
                while (!stack.isEmpty() && stack.get(stack.size() - 1).endNanos() <= e.startNanos()) {
                    stack.remove(stack.size() - 1);
                }
                if (!stack.isEmpty()) {
                    parents.put(e.key(), stack.get(stack.size() - 1).key());
                }
                if (!e.instant()) {
                    stack.add(e);
                }
            }
        });
        return parents;
    }
}
