package dev.vantage.device.kit.memory;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.Test;

import dev.vantage.profiler.api.MemorySnapshot.TraceEntry;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.tensor.Device;

/** The caching allocator behaves as torch's: rounding, pools, splitting, caching per stream, retries, history. */
public class CachingAllocatorTest {

    private static final long MIB = 1L << 20;
    private final Device npu = new Device("npu", 1);

    private CachingAllocator allocator(long capacity) {
        return new CachingAllocator(npu, new EmulatedHeap(0x4000_0000L, capacity));
    }

    private static long stat(CachingAllocator a, String key) {
        return a.stats().values().get(key);
    }

    @Test
    public void sizesAndSegmentsAreRoundedAsTorchRoundsThem() {
        assertEquals(512, CachingAllocator.roundSize(0));
        assertEquals(512, CachingAllocator.roundSize(1));
        assertEquals(512, CachingAllocator.roundSize(512));
        assertEquals(1024, CachingAllocator.roundSize(513));
        assertEquals(2 * MIB, CachingAllocator.segmentSize(MIB));
        assertEquals(20 * MIB, CachingAllocator.segmentSize(MIB + 512));
        assertEquals(20 * MIB, CachingAllocator.segmentSize(10 * MIB - 512));
        assertEquals(10 * MIB, CachingAllocator.segmentSize(10 * MIB));
        assertEquals(12 * MIB, CachingAllocator.segmentSize(10 * MIB + 1));
    }

    @Test
    public void smallAndLargeRequestsComeFromTheirPools() {
        CachingAllocator a = allocator(64 * MIB);
        MemoryBlock s = a.allocate(1000, 0);
        MemoryBlock l = a.allocate(3 * MIB, 0);
        assertTrue(s.small());
        assertEquals(1024, s.size());
        assertEquals(3 * MIB, l.size());
        assertEquals(2 * MIB, stat(a, "reserved_bytes.small_pool.current"));
        assertEquals(20 * MIB, stat(a, "reserved_bytes.large_pool.current"));
        assertEquals(1024, stat(a, "allocated_bytes.small_pool.current"));
        assertEquals(1000, stat(a, "requested_bytes.small_pool.current"));
        assertEquals(2, stat(a, "segment.all.current"));
        assertEquals(2, stat(a, "inactive_split.all.current"));
        assertEquals(22 * MIB - 1024 - 3 * MIB, stat(a, "inactive_split_bytes.all.current"));
        assertNull(a.checkInvariants());
    }

    @Test
    public void aFreedBlockIsReusedAtTheSameAddressWithoutAskingTheDevice() {
        CachingAllocator a = allocator(64 * MIB);
        MemoryBlock first = a.allocate(4096, 0);
        a.free(first);
        MemoryBlock again = a.allocate(4000, 0);
        assertEquals(first.address(), again.address());
        assertEquals(1, stat(a, "num_device_alloc"));
        assertEquals(2, stat(a, "allocation.all.allocated"));
        assertEquals(1, stat(a, "allocation.all.freed"));
        assertNull(a.checkInvariants());
    }

    @Test
    public void blocksAreCachedPerStream() {
        CachingAllocator a = allocator(64 * MIB);
        MemoryBlock onZero = a.allocate(4096, 0);
        a.free(onZero);
        MemoryBlock onOne = a.allocate(4096, 1);
        assertNotEquals("stream 1 must not take stream 0's cached segment", onZero.address(), onOne.address());
        assertEquals(2, stat(a, "segment.all.current"));
        MemorySnapshot snap = a.snapshot();
        assertEquals(List.of(0L, 1L), snap.segments().stream().map(MemorySnapshot.Segment::stream).toList());
        assertNull(a.checkInvariants());
    }

    @Test
    public void freedNeighboursMergeAndEmptyCacheGivesWholeSegmentsBack() {
        CachingAllocator a = allocator(64 * MIB);
        MemoryBlock x = a.allocate(512, 0);
        MemoryBlock y = a.allocate(512, 0);
        MemoryBlock z = a.allocate(512, 0);
        a.free(y);
        a.free(x);
        assertNull(a.checkInvariants());
        MemoryBlock both = a.allocate(1024, 0);
        assertEquals(x.address(), both.address());
        a.free(both);
        a.free(z);
        assertEquals(0, stat(a, "inactive_split.all.current"));
        assertEquals(2 * MIB, stat(a, "reserved_bytes.all.current"));
        a.emptyCache();
        assertEquals(0, stat(a, "reserved_bytes.all.current"));
        assertEquals(1, stat(a, "num_device_free"));
        assertNull(a.checkInvariants());
    }

    @Test
    public void aFullDeviceFreesTheCacheAndRetriesBeforeFailing() {
        CachingAllocator a = allocator(40 * MIB);
        MemoryBlock big = a.allocate(15 * MIB, 0);
        a.free(big);
        // 16 MiB cached in one segment; a 30 MiB request only fits once that segment goes back to the device
        MemoryBlock bigger = a.allocate(30 * MIB, 0);
        assertEquals(1, stat(a, "num_alloc_retries"));
        assertEquals(30 * MIB, stat(a, "reserved_bytes.all.current"));
        DeviceOutOfMemoryError e = assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(20 * MIB, 0));
        assertEquals(20 * MIB, e.requested());
        assertEquals(30 * MIB, e.allocated());
        assertEquals(10 * MIB, e.free());
        assertEquals("npu:1", e.device());
        assertEquals(1, stat(a, "num_ooms"));
        assertEquals(bigger.size(), stat(a, "allocated_bytes.all.current"));
        assertNull(a.checkInvariants());
    }

    @Test
    public void aCapFailsRequestsBeyondItAndNamesIt() {
        CachingAllocator a = allocator(1024 * MIB);
        a.limit(8 * MIB);
        a.allocate(MIB, 0);
        DeviceOutOfMemoryError e = assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(2 * MIB, 0));
        assertTrue(e.getMessage(), e.getMessage().contains("limited to 8.00 MiB for this process"));
        assertEquals(8 * MIB, e.limit());
        a.limit(0);
        a.allocate(2 * MIB, 0);
    }

    @Test
    public void doubleFreesAndForeignBlocksAreRefused() {
        CachingAllocator a = allocator(64 * MIB);
        MemoryBlock b = a.allocate(100, 0);
        a.free(b);
        assertThrows(IllegalStateException.class, () -> a.free(b));
        assertThrows(IllegalStateException.class, () -> a.free(allocator(64 * MIB).allocate(100, 0)));
        assertThrows(IllegalArgumentException.class, () -> a.allocate(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> a.allocate(1, -1));
    }

    @Test
    public void peaksAndAccumulatedCountersReset() {
        CachingAllocator a = allocator(64 * MIB);
        MemoryBlock b = a.allocate(MIB, 0);
        a.free(b);
        assertEquals(MIB, stat(a, "allocated_bytes.all.peak"));
        a.resetPeakStats();
        assertEquals(0, stat(a, "allocated_bytes.all.peak"));
        assertEquals(2 * MIB, stat(a, "reserved_bytes.all.peak"));
        a.resetAccumulatedStats();
        assertEquals(0, stat(a, "allocated_bytes.all.allocated"));
        assertEquals(0, stat(a, "num_device_alloc"));
        Map<String, Long> v = a.stats().values();
        assertEquals(-1, (long) v.get("max_split_size"));
        assertEquals(9 * 3 * 4 + 8 + 6, v.size());
    }

    @Test
    public void historyRecordsActionsWithFramesWithinItsBound() {
        CachingAllocator a = allocator(64 * MIB);
        a.recordHistory(5, true);
        MemoryBlock b = a.allocate(700, 0);
        a.free(b);
        List<TraceEntry> trace = a.snapshot().deviceTraces().get(1);
        assertEquals(List.of("segment_alloc", "alloc", "free_requested", "free_completed", "snapshot"),
                trace.stream().map(TraceEntry::action).toList());
        TraceEntry alloc = trace.get(1);
        assertEquals(b.address(), alloc.address());
        assertEquals(1024, alloc.size());
        assertTrue(alloc.frames().get(0).name(),
                alloc.frames().get(0).name().endsWith("historyRecordsActionsWithFramesWithinItsBound"));
        assertTrue(alloc.timeUs() > 1_700_000_000_000_000L);
        // each snapshot is recorded, and the ring keeps only the latest five
        List<TraceEntry> later = a.snapshot().deviceTraces().get(1);
        assertEquals(List.of("alloc", "free_requested", "free_completed", "snapshot", "snapshot"),
                later.stream().map(TraceEntry::action).toList());
        a.recordHistory(0, false);
        assertTrue(a.snapshot().deviceTraces().get(1).isEmpty());
    }

    @Test
    public void anOutOfMemoryIsRecordedWithTheFreeBytes() {
        CachingAllocator a = allocator(4 * MIB);
        a.recordHistory(100, false);
        assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(5 * MIB, 0));
        TraceEntry oom = a.snapshot().deviceTraces().get(1).get(0);
        assertEquals("oom", oom.action());
        assertEquals(5 * MIB, oom.size());
        assertEquals(4 * MIB, oom.deviceFree());
    }
}
