package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/**
 * A trace's {@code [memory]} events as the TensorBoard plugin's Memory view shows them: its memory statistics by
 * operator (each event given to the innermost operator enclosing it on its thread, {@link MemoryOperators}: calls,
 * allocations and frees of the operator itself, and allocations and increase with its children), its memory events
 * (each allocation matched to the next free of its address: operator, size, allocation and release time, a block
 * never freed and a free never allocated in the trace each a row of its own), and the bytes held per device and
 * memory category over time (a free taken from its block's category, as a memory timeline takes it). Two passes over
 * the engine's cursor, the second only when a device's own memory reports name the op that launched their work.
 */
public final class MemoryEvents {

    /** {@link #byOperator()}'s columns; the last three count the operator's children too. */
    public static final List<String> OPERATOR_COLUMNS = List.of("device", "operator", "calls", "allocations",
            "allocated_bytes", "frees", "freed_bytes", "increase_bytes", "allocations_with_children",
            "allocated_bytes_with_children", "increase_bytes_with_children");
    /**
     * {@link #blocks()}'s columns; times in ns from the trace's start, null for a block never freed in the trace (no
     * release) or freed but not allocated in it (no allocation).
     */
    public static final List<String> BLOCK_COLUMNS = List.of("device", "operator", "bytes", "allocated_at_ns",
            "released_at_ns", "held_ns");
    /** The operator of an event no counted operator encloses, in {@link #blocks()}. */
    public static final String UNKNOWN = "<unknown>";
    /** The most points a device's category curve keeps (the last always among them). */
    public static final int MAX_POINTS = 2_000;

    /** One memory event: times in ns from the trace's start, indexes into the device and category lists. */
    private static final class Event {
        final long at;
        final long bytes;
        final long address;
        final int device;
        final int category;
        MemoryOperators.Attribution op;
        final long parent;

        Event(long at, long bytes, long address, int device, int category, MemoryOperators.Attribution op,
                long parent) {
            this.at = at;
            this.bytes = bytes;
            this.address = address;
            this.device = device;
            this.category = category;
            this.op = op;
            this.parent = parent;
        }

        /** The plugin's name for an allocation's operator: aten::empty is told by the operator around it. */
        String opName() {
            if (op == null) {
                return UNKNOWN;
            }
            return op.op().startsWith("aten::empty") && op.parent() != null ? op.parent() + " (" + op.op() + ")"
                    : op.op();
        }
    }

    private final List<List<Object>> byOperator;
    private final List<List<Object>> blocks;
    private final Map<String, List<long[]>> curves;
    private final List<String> categories;
    private final long outside;
    private final boolean addressed;

    private MemoryEvents(List<List<Object>> byOperator, List<List<Object>> blocks, Map<String, List<long[]>> curves,
            List<String> categories, long outside, boolean addressed) {
        this.byOperator = byOperator;
        this.blocks = blocks;
        this.curves = curves;
        this.categories = categories;
        this.outside = outside;
        this.addressed = addressed;
    }

    /** The memory events of a trace. */
    public static MemoryEvents of(AnalysedTrace trace) {
        long origin = trace.startEpochNanos();
        List<Event> events = new ArrayList<>();
        List<String> devices = new ArrayList<>();
        List<String> categories = new ArrayList<>();
        MemoryOperators ops = new MemoryOperators();
        EventCursor c = trace.events();
        Map<Long, MemoryOperators.Attribution> deferred = new HashMap<>();
        while (c.next()) {
            if (!Analysis.isMemory(c.kind().id())) {
                if (!c.kind().isDeviceWork() && c.kind() != EventKind.RUNTIME && c.kind() != EventKind.GC) {
                    ops.open(c);
                }
                continue;
            }
            if (c.kind() == EventKind.OUT_OF_MEMORY) {
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
            MemoryOperators.Attribution op = ops.attribute(c);
            if (op == MemoryOperators.DEFERRED) {
                deferred.put(c.parentId(), null);
            }
            events.add(new Event(c.startEpochNanos() - origin, c.memoryBytes(), c.memoryAddress(), d, k, op,
                    c.parentId()));
        }
        if (!deferred.isEmpty()) {
            c = trace.events();
            while (c.next()) {
                if (c.kind() == EventKind.CPU_OP && deferred.containsKey(c.eventId())
                        && MemoryOperators.counted(c.name())) {
                    deferred.put(c.eventId(), new MemoryOperators.Attribution(c.name(), null, List.of()));
                }
            }
            events.forEach(e -> e.op = e.op == MemoryOperators.DEFERRED ? deferred.get(e.parent) : e.op);
        }
        events.sort(Comparator.comparingLong(e -> e.at));
        // torch's events carry no category: read back, each is Unknown, which makes no curve worth drawing
        if (categories.stream().allMatch(k -> k.equals("Unknown"))) {
            categories.clear();
        }
        long outside = events.stream().filter(e -> e.op == null).count();
        boolean addressed = events.stream().anyMatch(e -> e.address != 0);
        List<List<Object>> byOperator = statistics(events, devices, ops.calls());
        List<List<Object>> blocks = addressed ? blocks(events, devices) : List.of();
        Map<String, List<long[]>> curves = new TreeMap<>();
        if (!categories.isEmpty()) {
            Map<Long, Integer> live = new HashMap<>();
            Map<String, long[]> held = new LinkedHashMap<>();
            for (Event e : events) {
                String device = devices.get(e.device);
                int category = e.category;
                if (e.bytes > 0) {
                    live.put(e.address, category);
                } else {
                    Integer allocated = live.remove(e.address);
                    category = allocated != null ? allocated : category;
                }
                long[] totals = held.computeIfAbsent(device, x -> new long[categories.size() + 1]);
                totals[category < 0 ? categories.size() : category] += e.bytes;
                long[] point = new long[totals.length + 1];
                point[0] = e.at;
                System.arraycopy(totals, 0, point, 1, totals.length);
                curves.computeIfAbsent(device, x -> new ArrayList<>()).add(point);
            }
            curves.replaceAll((device, points) -> thin(points));
        }
        List<String> named = new ArrayList<>(categories);
        named.add("(no category)");
        return new MemoryEvents(byOperator, blocks, curves, categories.isEmpty() ? List.of() : named, outside,
                addressed);
    }

    /** The plugin's statistics: per device and operator, self and with children; most bytes allocated first. */
    private static List<List<Object>> statistics(List<Event> events, List<String> devices, Map<String, Long> calls) {
        // per device and operator: allocations, bytes, frees, bytes, and with children: allocations, bytes, increase
        Map<List<String>, long[]> sums = new LinkedHashMap<>();
        for (Event e : events) {
            if (e.op == null) {
                continue;
            }
            String device = devices.get(e.device);
            long[] s = sums.computeIfAbsent(List.of(device, e.op.op()), x -> new long[7]);
            add(s, e.bytes, true);
            for (String outer : e.op.enclosing()) {
                add(sums.computeIfAbsent(List.of(device, outer), x -> new long[7]), e.bytes, false);
            }
        }
        List<List<Object>> rows = new ArrayList<>();
        sums.forEach((k, s) -> rows.add(List.of(k.get(0), k.get(1), calls.getOrDefault(k.get(1), 0L), s[0], s[1],
                s[2], s[3], s[1] - s[3], s[4], s[5], s[6])));
        rows.sort(Comparator.comparingLong((List<Object> r) -> (Long) r.get(4)).reversed()
                .thenComparing(r -> (Long) r.get(9), Comparator.reverseOrder())
                .thenComparing(r -> (String) r.get(0)).thenComparing(r -> (String) r.get(1)));
        return rows;
    }

    private static void add(long[] s, long bytes, boolean self) {
        if (self && bytes > 0) {
            s[0]++;
            s[1] += bytes;
        } else if (self && bytes < 0) {
            s[2]++;
            s[3] -= bytes;
        }
        if (bytes > 0) {
            s[4]++;
            s[5] += bytes;
        }
        s[6] += bytes;
    }

    /**
     * The plugin's memory events: in time order, an allocation waits for the next free of its address (a second
     * allocation of the address before it replaces it, as in the plugin); largest first.
     */
    private static List<List<Object>> blocks(List<Event> events, List<String> devices) {
        Map<Long, Event> live = new HashMap<>();
        Map<Long, Event> unmatched = new HashMap<>();
        List<List<Object>> blocks = new ArrayList<>();
        for (Event e : events) {
            if (e.address == 0) {
                continue;   // no Addr (torch before 1.10): nothing to match by
            }
            if (e.bytes > 0) {
                live.put(e.address, e);
                continue;
            }
            Event allocation = live.remove(e.address);
            if (allocation != null) {
                blocks.add(Arrays.asList(devices.get(allocation.device), allocation.opName(), -e.bytes, allocation.at,
                        e.at, e.at - allocation.at));
            } else {
                unmatched.put(e.address, e);
            }
        }
        for (Event e : live.values()) {
            blocks.add(Arrays.asList(devices.get(e.device), e.opName(), e.bytes, e.at, null, null));
        }
        for (Event e : unmatched.values()) {
            blocks.add(Arrays.asList(devices.get(e.device), UNKNOWN, -e.bytes, null, e.at, null));
        }
        blocks.sort(Comparator.comparingLong((List<Object> b) -> (Long) b.get(2)).reversed()
                .thenComparing(b -> (Long) (b.get(3) != null ? b.get(3) : b.get(4))));
        return blocks;
    }

    /** At most {@link #MAX_POINTS} of a curve's points, evenly spaced, the last one kept (the memory timeline's too). */
    static List<long[]> thin(List<long[]> points) {
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

    /**
     * Per device and operator ({@link #OPERATOR_COLUMNS}): calls of the operator, its own allocations and their
     * bytes, its frees and their bytes, the increase, and with its children the allocations, bytes and increase;
     * most bytes allocated first. An operator is in it when an event on the device is its own or its children's.
     */
    public List<List<Object>> byOperator() {
        return byOperator;
    }

    /**
     * The allocations matched to their frees ({@link #BLOCK_COLUMNS}), largest first; empty when the trace's events
     * carry no address ({@link #addressed()}).
     */
    public List<List<Object>> blocks() {
        return blocks;
    }

    /** How many memory events no counted operator encloses: in no statistic, {@link #UNKNOWN} in the blocks. */
    public long outsideOperators() {
        return outside;
    }

    /** Whether the events carry addresses (torch 1.10 on), without which no allocation is matched to its free. */
    public boolean addressed() {
        return addressed;
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
