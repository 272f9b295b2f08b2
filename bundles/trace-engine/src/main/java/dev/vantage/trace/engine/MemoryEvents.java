package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/**
 * A trace's {@code [memory]} events as the TensorBoard plugin's Memory view shows them: each allocation matched to
 * its free by address on its device (the plugin's memory events: operator, size, allocation and release time), the
 * allocations and frees summed by operator (an event belongs to the innermost event enclosing it on its thread, the
 * operator that launched the work for a device's report), and the bytes held per device and memory category over
 * time (a free is taken from its block's category, as a memory timeline takes it). Two passes over the engine's
 * cursor; only memory events and the names of their operators are kept.
 */
public final class MemoryEvents {

    /** {@link #byOperator()}'s columns. */
    public static final List<String> OPERATOR_COLUMNS = List.of("device", "operator", "allocations",
            "allocated_bytes", "frees", "freed_bytes", "increase_bytes");
    /** {@link #blocks()}'s columns; times in ns from the trace's start, null for a block never freed in it. */
    public static final List<String> BLOCK_COLUMNS = List.of("device", "operator", "bytes", "allocated_at_ns",
            "released_at_ns", "held_ns");
    /** The most points a device's category curve keeps (the last always among them). */
    public static final int MAX_POINTS = 2_000;

    private final List<List<Object>> byOperator;
    private final List<List<Object>> blocks;
    private final Map<String, List<long[]>> curves;
    private final List<String> categories;

    private MemoryEvents(List<List<Object>> byOperator, List<List<Object>> blocks, Map<String, List<long[]>> curves,
            List<String> categories) {
        this.byOperator = byOperator;
        this.blocks = blocks;
        this.curves = curves;
        this.categories = categories;
    }

    /** The memory events of a trace. */
    public static MemoryEvents of(AnalysedTrace trace) {
        long origin = trace.startEpochNanos();
        List<long[]> events = new ArrayList<>();   // {time, bytes, address, parent, device, category}
        List<String> devices = new ArrayList<>();
        List<String> categories = new ArrayList<>();
        Set<Long> parents = new HashSet<>();
        EventCursor c = trace.events();
        while (c.next()) {
            if (!Analysis.isMemory(c.kind().id()) || c.kind() == EventKind.OUT_OF_MEMORY) {
                continue;
            }
            String device = c.deviceType() + (c.deviceIndex() >= 0 ? ":" + c.deviceIndex() : "");
            int d = devices.indexOf(device);
            if (d < 0) {
                devices.add(device);
                d = devices.size() - 1;
            }
            String category = c.memoryCategory();
            int k = category.isEmpty() ? -1 : categories.indexOf(category);
            if (!category.isEmpty() && k < 0) {
                categories.add(category);
                k = categories.size() - 1;
            }
            events.add(new long[] {c.startEpochNanos() - origin, c.memoryBytes(), c.memoryAddress(), c.parentId(), d,
                    k});
            parents.add(c.parentId());
        }
        Map<Long, String> names = new HashMap<>();
        c = trace.events();
        while (c.next() && names.size() < parents.size()) {
            if (parents.contains(c.eventId()) && !Analysis.isMemory(c.kind().id())) {
                names.put(c.eventId(), c.name());
            }
        }
        events.sort(Comparator.comparingLong(e -> e[0]));
        // torch's events carry no category: read back, each is Unknown, which makes no curve worth drawing
        if (categories.stream().allMatch(k -> k.equals("Unknown"))) {
            categories.clear();
        }
        Map<List<String>, long[]> sums = new LinkedHashMap<>();
        Map<Long, long[]> live = new HashMap<>();   // by device and address: the allocation's event
        List<List<Object>> blocks = new ArrayList<>();
        Map<String, long[]> held = new LinkedHashMap<>();
        Map<String, List<long[]>> curves = new TreeMap<>();
        for (long[] e : events) {
            String device = devices.get((int) e[4]);
            String op = names.getOrDefault(e[3], "(no operator)");
            long[] s = sums.computeIfAbsent(List.of(device, op), x -> new long[4]);
            long key = e[2] << 6 ^ e[4];
            int category = (int) e[5];
            if (e[1] >= 0) {
                s[0]++;
                s[1] += e[1];
                live.put(key, e);
            } else {
                s[2]++;
                s[3] -= e[1];
                long[] allocation = live.remove(key);
                if (allocation != null) {
                    category = (int) allocation[5];
                    blocks.add(java.util.Arrays.asList(device, names.getOrDefault(allocation[3], "(no operator)"),
                            allocation[1], allocation[0], e[0], e[0] - allocation[0]));
                }
            }
            if (!categories.isEmpty()) {
                long[] totals = held.computeIfAbsent(device, x -> new long[categories.size() + 1]);
                totals[category < 0 ? categories.size() : category] += e[1];
                long[] point = new long[totals.length + 1];
                point[0] = e[0];
                System.arraycopy(totals, 0, point, 1, totals.length);
                curves.computeIfAbsent(device, x -> new ArrayList<>()).add(point);
            }
        }
        for (long[] e : live.values()) {
            blocks.add(java.util.Arrays.asList(devices.get((int) e[4]), names.getOrDefault(e[3], "(no operator)"),
                    e[1], e[0], null, null));
        }
        blocks.sort(Comparator.comparingLong((List<Object> b) -> (Long) b.get(2)).reversed()
                .thenComparingLong(b -> (Long) b.get(3)));
        List<List<Object>> byOperator = new ArrayList<>();
        sums.forEach((k, s) -> byOperator.add(List.of(k.get(0), k.get(1), s[0], s[1], s[2], s[3], s[1] - s[3])));
        byOperator.sort(Comparator.comparingLong((List<Object> r) -> (Long) r.get(3)).reversed());
        curves.replaceAll((device, points) -> thin(points));
        List<String> named = new ArrayList<>(categories);
        named.add("(no category)");
        return new MemoryEvents(byOperator, blocks, curves, categories.isEmpty() ? List.of() : named);
    }

    private static List<long[]> thin(List<long[]> points) {
        if (points.size() <= MAX_POINTS) {
            return points;
        }
        List<long[]> out = new ArrayList<>(MAX_POINTS);
        double stride = points.size() / (double) (MAX_POINTS - 1);
        for (int i = 0; i < MAX_POINTS - 1; i++) {
            out.add(points.get((int) (i * stride)));
        }
        out.add(points.get(points.size() - 1));
        return out;
    }

    /** Per device and operator: allocations, their bytes, frees, their bytes, the increase; most allocated first. */
    public List<List<Object>> byOperator() {
        return byOperator;
    }

    /** Each allocation and its free, largest first; a block the trace never frees has no release time. */
    public List<List<Object>> blocks() {
        return blocks;
    }

    /** The categories of {@link #curves()}' columns, the last for events of none; empty when no
     * event has one but {@code Unknown} (torch's traces). */
    public List<String> categories() {
        return categories;
    }

    /**
     * Per device, the bytes held in each category after its memory events: {time ns, bytes per category...}; at
     * most {@link #MAX_POINTS} points each. Empty when no event has a category.
     */
    public Map<String, List<long[]>> curves() {
        return curves;
    }
}
