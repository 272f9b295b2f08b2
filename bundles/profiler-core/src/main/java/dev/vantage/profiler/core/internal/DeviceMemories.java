package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.spi.MemoryAllocator;

/**
 * The profiler's memory API over the installed allocators: finds a device's allocator by name (a bare type, such
 * as {@code npu}, means index 0), and merges the snapshots of every device of a type into one, as torch's
 * {@code _snapshot()} holds every device of a process.
 */
final class DeviceMemories {

    private final List<MemoryAllocator> allocators;

    /** Works over a live list of the installed allocators. */
    DeviceMemories(List<MemoryAllocator> allocators) {
        this.allocators = allocators;
    }

    List<String> devices() {
        return allocators.stream().map(MemoryAllocator::device).sorted().distinct().toList();
    }

    MemoryAllocator find(String device) {
        String wanted = device.indexOf(':') < 0 && !device.equals("cpu") ? device + ":0" : device;
        for (MemoryAllocator a : allocators) {
            if (a.device().equals(wanted) || a.device().equals(device) || (a.device() + ":0").equals(device)) {
                return a;
            }
        }
        throw new IllegalArgumentException("no memory allocator serves device " + device + "; installed: "
                + (allocators.isEmpty() ? "none" : String.join(", ", devices())));
    }

    private static String type(MemoryAllocator a) {
        String d = a.device();
        int colon = d.indexOf(':');
        return colon < 0 ? d : d.substring(0, colon);
    }

    private static int index(MemoryAllocator a) {
        String d = a.device();
        int colon = d.indexOf(':');
        return colon < 0 ? 0 : Integer.parseInt(d.substring(colon + 1));
    }

    private List<MemoryAllocator> ofType(String deviceType) {
        List<MemoryAllocator> found = new ArrayList<>();
        for (MemoryAllocator a : allocators) {
            if (type(a).equals(deviceType)) {
                found.add(a);
            }
        }
        if (found.isEmpty()) {
            throw new IllegalArgumentException("no memory allocator serves devices of type " + deviceType
                    + "; installed: " + (allocators.isEmpty() ? "none" : String.join(", ", devices())));
        }
        found.sort(Comparator.comparingInt(DeviceMemories::index));
        return found;
    }

    MemoryStats stats(String device) {
        return find(device).stats();
    }

    String summary(String device, boolean abbreviated) {
        MemoryAllocator a = find(device);
        return MemorySummary.format(a.device(), a.stats().values(), abbreviated);
    }

    void limit(String device, long bytes) {
        MemoryAllocator a = find(device);
        if (!a.limit(bytes)) {
            throw new UnsupportedOperationException("the allocator of " + a.device() + " cannot be capped");
        }
    }

    void recordHistory(String deviceType, int maxEntries, boolean stacks) {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("a memory history keeps 0 or more entries, not " + maxEntries);
        }
        boolean any = false;
        for (MemoryAllocator a : ofType(deviceType)) {
            any |= a.recordHistory(maxEntries, stacks);
        }
        if (!any) {
            throw new IllegalArgumentException("the allocators of " + deviceType + " record no history");
        }
    }

    /** A snapshot of a device type and the summary of one of its devices, taken at one moment. */
    record Pair(MemorySnapshot snapshot, String summary) {
    }

    /**
     * Takes a snapshot of a device type and the summary of one of its devices so that they agree: the device's
     * counters are read before and after the snapshot, and the pair is kept only when nothing was allocated or freed
     * between (every allocation and free changes a counter). Tried a few times on an allocator in constant use;
     * the last pair is kept then.
     */
    Pair snapshotAndSummary(String deviceType, String device, boolean abbreviated) {
        MemoryAllocator a = find(device);
        if (!ofType(deviceType).contains(a)) {
            throw new IllegalArgumentException(a.device() + " is not a device of type " + deviceType);
        }
        MemorySnapshot s;
        Map<String, Long> after;
        int attempts = 0;
        while (true) {
            Map<String, Long> before = a.stats().values();
            s = snapshot(deviceType);
            after = a.stats().values();
            if (before.equals(after) || ++attempts == 20) {
                break;
            }
        }
        return new Pair(s, MemorySummary.format(a.device(), after, abbreviated));
    }

    MemorySnapshot snapshot(String deviceType) {
        List<MemorySnapshot.Segment> segments = new ArrayList<>();
        List<List<MemorySnapshot.TraceEntry>> traces = new ArrayList<>();
        for (MemoryAllocator a : ofType(deviceType)) {
            MemorySnapshot s = a.snapshot();
            segments.addAll(s.segments());
            int i = index(a);
            while (traces.size() <= i) {
                traces.add(List.of());
            }
            if (i < s.deviceTraces().size()) {
                traces.set(i, s.deviceTraces().get(i));
            }
        }
        segments.sort(Comparator.comparingInt(MemorySnapshot.Segment::device)
                .thenComparingLong(MemorySnapshot.Segment::address));
        return new MemorySnapshot(segments, traces);
    }
}
