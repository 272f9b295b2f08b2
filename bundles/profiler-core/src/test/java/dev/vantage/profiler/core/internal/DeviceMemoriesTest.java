package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.spi.MemoryAllocator;

/** The profiler's memory API finds allocators by device name and merges a type's snapshots by device index. */
public class DeviceMemoriesTest {

    /** An allocator with one segment and one trace entry, that can be capped and records history. */
    private static final class Fake implements MemoryAllocator {
        final String device;
        final int index;
        long limit = -1;
        int history = -1;

        Fake(String device, int index) {
            this.device = device;
            this.index = index;
        }

        @Override
        public String device() {
            return device;
        }

        @Override
        public MemoryStats stats() {
            return new MemoryStats(device, Map.of("allocated_bytes.all.current", 100L + index));
        }

        @Override
        public void resetPeakStats() {
        }

        @Override
        public MemorySnapshot snapshot() {
            List<List<MemorySnapshot.TraceEntry>> traces = new ArrayList<>();
            for (int i = 0; i < index; i++) {
                traces.add(List.of());
            }
            traces.add(List.of(new MemorySnapshot.TraceEntry("alloc", 0x1000L * (index + 1), 512, 0, 1, List.of(),
                    0)));
            return new MemorySnapshot(List.of(new MemorySnapshot.Segment(index, 0x1000L * (index + 1), 2048, 512,
                    512, 500, 0, "small", List.of())), traces);
        }

        @Override
        public boolean recordHistory(int maxEntries, boolean stacks) {
            history = maxEntries;
            return true;
        }

        @Override
        public boolean limit(long bytes) {
            limit = bytes;
            return true;
        }
    }

    /** The host's allocator: counters only. */
    private static final MemoryAllocator HOST = TestProfiler.allocator("cpu");

    private final Fake npu1 = new Fake("npu:1", 1);
    private final Fake npu0 = new Fake("npu:0", 0);
    private final DeviceMemories memories = new DeviceMemories(List.of(npu1, HOST, npu0));

    @Test
    public void findsAllocatorsByNameOrBareType() {
        assertEquals(List.of("cpu", "npu:0", "npu:1"), memories.devices());
        assertEquals(100L, (long) memories.stats("npu").values().get("allocated_bytes.all.current"));
        assertEquals(101L, (long) memories.stats("npu:1").values().get("allocated_bytes.all.current"));
        assertEquals("cpu", memories.find("cpu:0").device());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> memories.stats("mps"));
        assertEquals("no memory allocator serves device mps; installed: cpu, npu:0, npu:1", e.getMessage());
    }

    @Test
    public void mergesEveryDeviceOfATypeByIndex() {
        MemorySnapshot s = memories.snapshot("npu");
        assertEquals(List.of(0, 1), s.segments().stream().map(MemorySnapshot.Segment::device).toList());
        assertEquals(2, s.deviceTraces().size());
        assertEquals(0x1000L, s.deviceTraces().get(0).get(0).address());
        assertEquals(0x2000L, s.deviceTraces().get(1).get(0).address());
        assertThrows(IllegalArgumentException.class, () -> memories.snapshot("spyre"));
    }

    @Test
    public void capsAndHistoryReachTheAllocatorsOrAreRefused() {
        memories.limit("npu:1", 4096);
        assertEquals(4096, npu1.limit);
        assertEquals(-1, npu0.limit);
        memories.recordHistory("npu", 10, true);
        assertTrue(npu0.history == 10 && npu1.history == 10);
        assertThrows(UnsupportedOperationException.class, () -> memories.limit("cpu", 1));
        assertThrows(IllegalArgumentException.class, () -> memories.recordHistory("cpu", 10, false));
        assertThrows(IllegalArgumentException.class, () -> memories.recordHistory("npu", -1, false));
    }

    @Test
    public void theSummaryIsTheDevicesTable() {
        String text = memories.summary("npu:1", true);
        assertTrue(text, text.contains("Vantage NPU memory summary, device ID 1"));
    }

    /**
     * An allocator in use while a snapshot is taken: another thread's allocation lands right after each of the first
     * two snapshots, before the counters are read again.
     */
    private static final class Busy implements MemoryAllocator {
        long allocated;
        long allocations;
        int busyFor = 2;

        @Override
        public String device() {
            return "npu:0";
        }

        @Override
        public synchronized MemoryStats stats() {
            return new MemoryStats(device(), Map.of("allocated_bytes.all.current", allocated,
                    "allocation.all.allocated", allocations));
        }

        @Override
        public void resetPeakStats() {
        }

        @Override
        public synchronized MemorySnapshot snapshot() {
            MemorySnapshot s = new MemorySnapshot(List.of(new MemorySnapshot.Segment(0, 0x1000, 2 << 20, allocated,
                    allocated, allocated, 0, "small", List.of())), List.of(List.of()));
            if (busyFor-- > 0) {
                allocated += 512;
                allocations++;
            }
            return s;
        }
    }

    @Test
    public void aSnapshotAndItsSummaryAreOfOneMomentWhileTheAllocatorIsInUse() {
        Busy busy = new Busy();
        DeviceMemories m = new DeviceMemories(List.of(busy));
        DeviceMemories.Pair pair = m.snapshotAndSummary("npu", "npu:0", false);
        long inSnapshot = pair.snapshot().segments().get(0).allocatedSize();
        assertEquals(1024, inSnapshot);
        assertEquals(MemorySummary.format("npu:0", Map.of("allocated_bytes.all.current", inSnapshot,
                "allocation.all.allocated", 2L), false), pair.summary());
        assertThrows(IllegalArgumentException.class, () -> memories.snapshotAndSummary("npu", "cpu", false));
    }
}
