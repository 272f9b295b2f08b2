package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;

/**
 * One device's memory over a cycle, by category, as torch's {@code MemoryProfileTimeline}: built from the cycle's
 * {@code [memory]} events, the blocks live when it began ({@link LiveBlocks}) and the runtime's
 * re-categorisations; written by the installed {@link dev.vantage.profiler.spi.ViewExporter}.
 *
 * <p>Design: built once, on the exporting thread, after the cycle stopped; nothing here runs on the recording path.
 * Events are put in time order (threads record independently), then two passes: the first follows each block from
 * its allocation to its free by address, giving it the category its allocation was recorded with, replaced by any
 * re-categorisation reported while it lived, so that a category holds for a block's whole life, as in torch; the
 * second sums bytes per category at each timestamp. The blocks live when the window began are torch's pre-existing
 * memory, with the categories they were allocated with (during the profile's waiting and warm-up steps). What the
 * allocator already held before the profile began (the device's first {@code Total Allocated} less its own bytes
 * and the known blocks), and the frees of such blocks, count as {@code Unknown}. So, when the allocator reported
 * every event, the categories at each timestamp add up to the {@code Total Allocated} of the timestamp's last event.
 */
final class MemoryTimelines {

    /** Entries per point: torch's leading 0, then one per category in {@link MemoryCategory} order. */
    static final int WIDTH = 1 + MemoryCategory.values().length;

    private static final Pattern DEVICE = Pattern.compile("([a-z][a-z0-9_]*)(?::(\\d{1,9}))?");
    private static final int UNKNOWN = MemoryCategory.UNKNOWN.ordinal();
    private static final int PREEXISTING = MemoryTimeline.PREEXISTING;
    private static final int CREATE = MemoryTimeline.CREATE;
    private static final int DESTROY = MemoryTimeline.DESTROY;

    private MemoryTimelines() {
    }

    /**
     * Normalises a device name: {@code cpu} for host memory whatever its index, {@code type:index} otherwise
     * ({@code npu} is {@code npu:0}).
     *
     * @throws IllegalArgumentException if the name is not {@code type} or {@code type:index}
     */
    static String normalise(String device) {
        Matcher m = DEVICE.matcher(device);
        if (!m.matches()) {
            throw new IllegalArgumentException("invalid device '" + device + "'; use a device such as npu:0 or cpu");
        }
        return key(m.group(1), m.group(2) == null ? 0 : Integer.parseInt(m.group(2)));
    }

    private static String key(String type, int index) {
        return type.equals("cpu") ? "cpu" : type + ":" + Math.max(index, 0);
    }

    /** Returns the first accelerator with memory events in time order, or {@code cpu} when there is none. */
    static String defaultDevice(Trace trace) {
        String first = null;
        long firstAt = Long.MAX_VALUE;
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.kind() == EventKind.MEMORY && !c.deviceType().equals("cpu") && c.startEpochNanos() < firstAt) {
                firstAt = c.startEpochNanos();
                first = key(c.deviceType(), c.deviceIndex());
            }
        }
        return first == null ? "cpu" : first;
    }

    /**
     * Builds the timeline of a device.
     *
     * @param trace the cycle's trace
     * @param recategorized the runtime's re-categorisations, in report order
     * @param preexisting the blocks live when the window began
     * @param epochOffsetNanos what turns their {@code nanoTime} into epoch nanoseconds
     * @param device a device as {@link #normalise} returns it
     */
    static MemoryTimeline build(Trace trace, List<Recategorized> recategorized, List<LiveBlocks.Block> preexisting,
            long epochOffsetNanos, String device) {
        Events events = new Events();
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.kind() == EventKind.MEMORY && key(c.deviceType(), c.deviceIndex()).equals(device)) {
                events.add(c.startEpochNanos(), c.memoryAddress(), c.memoryBytes(), c.memoryTotalAllocated(),
                        c.memoryTotalReserved(), categoryIndex(c.memoryCategory()));
            }
        }
        Integer[] order = events.timeOrder();
        List<Recategorized> retags = new ArrayList<>();
        for (Recategorized r : recategorized) {
            if (key(r.deviceType(), r.deviceIndex()).equals(device)) {
                retags.add(r);
            }
        }
        retags.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));

        // first pass: which block each event is about, and each block's category over its whole life
        List<LiveBlocks.Block> before = new ArrayList<>();
        for (LiveBlocks.Block b : preexisting) {
            if (key(b.deviceType(), b.deviceIndex()).equals(device)) {
                before.add(b);
            }
        }
        int[] blockOf = new int[events.size];
        int[] blockCategory = new int[events.size + before.size() + 1];
        int blocks = 0;
        Map<Long, Integer> live = new HashMap<>();
        for (LiveBlocks.Block b : before) {
            blockCategory[blocks] = b.category().ordinal();
            live.put(b.address(), blocks++);
        }
        int r = 0;
        for (int k = 0; k < order.length; k++) {
            int i = order[k];
            long at = events.nanos[i];
            // a re-categorisation applies to the block live at its address when it was reported
            for (; r < retags.size() && retags.get(r).nanos() + epochOffsetNanos < at; r++) {
                Integer block = live.get(retags.get(r).address());
                if (block != null) {
                    blockCategory[block] = retags.get(r).category().ordinal();
                }
            }
            long address = events.address[i];
            if (events.bytes[i] >= 0) {
                blockCategory[blocks] = events.category[i];
                blockOf[i] = blocks;
                live.put(address, blocks++);
            } else {
                Integer block = live.remove(address);
                blockOf[i] = block == null ? -1 : block;   // allocated before the cycle: pre-existing
            }
        }
        for (; r < retags.size(); r++) {
            Integer block = live.get(retags.get(r).address());
            if (block != null) {
                blockCategory[block] = retags.get(r).category().ordinal();
            }
        }

        // second pass: bytes per category at each timestamp, and torch's raw rows
        long[] times = new long[order.length];
        long[][] sizes = new long[order.length][];
        long[] reserved = new long[order.length];
        long[] allocated = new long[order.length];
        List<long[]> raw = new ArrayList<>(order.length + 1);
        int points = 0;
        long[] current = new long[WIDTH];
        if (order.length > 0) {
            long known = 0;
            for (int b = 0; b < before.size(); b++) {
                LiveBlocks.Block block = before.get(b);
                // its final category: the runtime may have re-categorised it during the window
                current[1 + blockCategory[b]] += block.bytes();
                known += block.bytes();
                raw.add(new long[] {-1, PREEXISTING, block.bytes(), blockCategory[b]});
            }
            // what the allocator held before the profile began, of which nothing is known
            int first = order[0];
            long unknown = events.totalAllocated[first] - events.bytes[first] - known;
            if (unknown > 0) {
                current[1 + UNKNOWN] += unknown;
                raw.add(new long[] {-1, PREEXISTING, unknown, UNKNOWN});
            }
        }
        for (int i : order) {
            long micros = events.nanos[i] / 1000;
            if (points == 0 || times[points - 1] != micros) {
                times[points] = micros;
                sizes[points] = current = current.clone();
                points++;
            }
            int category = blockOf[i] < 0 ? UNKNOWN : blockCategory[blockOf[i]];
            current[1 + category] += events.bytes[i];
            reserved[points - 1] = events.totalReserved[i];
            allocated[points - 1] = events.totalAllocated[i];
            raw.add(new long[] {events.nanos[i], events.bytes[i] >= 0 ? CREATE : DESTROY, events.bytes[i],
                category});
        }
        return new MemoryTimeline(device, emulated(trace, device), Arrays.copyOf(times, points),
                Arrays.copyOf(sizes, points), Arrays.copyOf(reserved, points), Arrays.copyOf(allocated, points),
                raw.toArray(new long[0][]));
    }

    private static int categoryIndex(String torchName) {
        for (MemoryCategory m : MemoryCategory.values()) {
            if (m.torchName().equals(torchName)) {
                return m.ordinal();
            }
        }
        return UNKNOWN;
    }

    private static boolean emulated(Trace trace, String device) {
        for (TraceDevice d : trace.devices()) {
            if (key(d.type(), d.index()).equals(device) && d.emulated()) {
                return true;
            }
        }
        String type = device.contains(":") ? device.substring(0, device.indexOf(':')) : device;
        return "true".equals(trace.metadata().get("vantage.device." + type + ".emulated"));
    }

    /** The device's memory events in recording order, as columns. */
    private static final class Events {
        long[] nanos = new long[64];
        long[] address = new long[64];
        long[] bytes = new long[64];
        long[] totalAllocated = new long[64];
        long[] totalReserved = new long[64];
        int[] category = new int[64];
        int size;

        void add(long at, long addr, long n, long allocated, long reservedBytes, int cat) {
            if (size == nanos.length) {
                int grown = size * 2;
                nanos = Arrays.copyOf(nanos, grown);
                address = Arrays.copyOf(address, grown);
                bytes = Arrays.copyOf(bytes, grown);
                totalAllocated = Arrays.copyOf(totalAllocated, grown);
                totalReserved = Arrays.copyOf(totalReserved, grown);
                category = Arrays.copyOf(category, grown);
            }
            nanos[size] = at;
            address[size] = addr;
            bytes[size] = n;
            totalAllocated[size] = allocated;
            totalReserved[size] = reservedBytes;
            category[size] = cat;
            size++;
        }

        /** Indexes by time, recording order among equal times (the sort is stable). */
        Integer[] timeOrder() {
            Integer[] order = new Integer[size];
            for (int i = 0; i < size; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (a, b) -> Long.compare(nanos[a], nanos[b]));
            return order;
        }
    }
}
