package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.Test;

import dev.vantage.device.kit.memory.DeviceOutOfMemoryError;
import dev.vantage.device.kit.memory.MemoryBlock;
import dev.vantage.profiler.api.MemorySnapshot.TraceEntry;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.tensor.Device;

/**
 * The VF block allocator behaves as torch-spyre's: segments reserved up front, the segment with the most free
 * memory, first fit inside it, 128-byte sizes, coalescing on free; counted, recorded and reported as the caching
 * allocator is.
 */
public class VfBlockAllocatorTest {

    static final long MIB = 1L << 20;
    static final long BASE = 0x5000_0000_0000L;
    private static final Device SPYRE = new Device("spyre", 0);

    static VfSegmentTable table(long capacity) {
        return VfSegmentTable.build(capacity, SpyreCard.ALIGNMENT, BASE);
    }

    private static long stat(VfBlockAllocator a, String key) {
        return a.stats().values().get(key);
    }

    @Test
    public void reservesEverySegmentWhenCreated() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        assertEquals(8, stat(a, "segment.all.current"));
        assertEquals(8, stat(a, "segment.large_pool.current"));
        assertEquals(8 * MIB, stat(a, "reserved_bytes.all.current"));
        assertEquals(8 * MIB, stat(a, "reserved_bytes.large_pool.current"));
        assertEquals(8, stat(a, "num_device_alloc"));
        assertEquals(0, stat(a, "allocated_bytes.all.current"));
        assertEquals(0, stat(a, "inactive_split.all.current"));
        assertEquals(8 * MIB, a.capacity());
        assertEquals("spyre:0", a.device());
        MemorySnapshot s = a.snapshot();
        assertEquals(8, s.segments().size());
        for (int i = 0; i < 8; i++) {
            MemorySnapshot.Segment seg = s.segments().get(i);
            assertEquals(BASE + i * MIB, seg.address());
            assertEquals(MIB, seg.totalSize());
            assertEquals("large", seg.segmentType());
            assertEquals(List.of(new MemorySnapshot.Block(BASE + i * MIB, MIB, 0, MemorySnapshot.INACTIVE,
                    List.of())), seg.blocks());
        }
        a.emptyCache();
        assertEquals("the segments are kept for the card's lifetime", 8 * MIB, stat(a, "reserved_bytes.all.current"));
        assertNull(a.checkInvariants());
    }

    @Test
    public void roundsTo128BytesAndCountsSmallAndLargeBlocks() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(64 * MIB));
        MemoryBlock tiny = a.allocate(0, 0);
        MemoryBlock s = a.allocate(1000, 1);
        MemoryBlock l = a.allocate(3 * MIB + 1, 0);
        assertEquals(128, tiny.size());
        assertEquals(1024, s.size());
        assertEquals(1000, s.requested());
        assertEquals(1, s.stream());
        assertTrue(s.small());
        assertFalse(l.small());
        assertEquals(3 * MIB + 128, l.size());
        assertEquals(128 + 1024, stat(a, "allocated_bytes.small_pool.current"));
        assertEquals(3 * MIB + 128, stat(a, "allocated_bytes.large_pool.current"));
        assertEquals(1001 + 3 * MIB, stat(a, "requested_bytes.all.current"));
        assertEquals(3, stat(a, "allocation.all.current"));
        assertEquals(3, stat(a, "active.all.current"));
        assertEquals("each allocation went to another whole segment and split it", 3,
                stat(a, "inactive_split.all.current"));
        assertEquals(3 * 8 * MIB - 128 - 1024 - 3 * MIB - 128, stat(a, "inactive_split_bytes.all.current"));
        assertNull(a.checkInvariants());
    }

    @Test
    public void picksTheSegmentWithTheMostFreeMemoryAndTheFirstFitInIt() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        List<MemoryBlock> firsts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            firsts.add(a.allocate(1000, 0));
            assertEquals("the first block of segment " + i, BASE + i * MIB, firsts.get(i).address());
        }
        MemoryBlock second = a.allocate(1000, 0);
        assertEquals("every segment is as free; the lowest-numbered wins", BASE + 1024, second.address());
        a.free(firsts.get(3));
        MemoryBlock next = a.allocate(512, 0);
        assertEquals("segment 3 has the most free memory, and its first block fits", BASE + 3 * MIB,
                next.address());
        assertNull(a.checkInvariants());
    }

    @Test
    public void adjacentFreeBlocksMerge() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(MIB));
        long segment = MIB / 8;
        // fill every other segment so that the three blocks land in segment 0, back to back
        MemoryBlock first = a.allocate(1000, 0);
        List<MemoryBlock> others = new ArrayList<>();
        for (int i = 1; i < 8; i++) {
            others.add(a.allocate(segment, 0));
        }
        MemoryBlock middle = a.allocate(3000, 0);
        MemoryBlock third = a.allocate(5000, 0);
        assertEquals(BASE + 1024, middle.address());
        assertEquals(BASE + 1024 + 3072, third.address());
        a.free(middle);
        assertEquals("a free block between two handed out stays apart", 2, stat(a, "inactive_split.all.current"));
        a.free(first);
        assertEquals("the two free blocks merged into one", 2, stat(a, "inactive_split.all.current"));
        assertEquals(segment - 5120, stat(a, "inactive_split_bytes.all.current"));
        assertNull(a.checkInvariants());
        MemoryBlock both = a.allocate(1024 + 3072, 0);
        assertEquals(first.address(), both.address());
        a.free(third);
        a.free(both);
        MemorySnapshot.Segment s0 = a.snapshot().segments().get(0);
        assertEquals("segment 0 is whole again", 1, s0.blocks().size());
        assertEquals(0, stat(a, "inactive_split.all.current"));
        others.forEach(a::free);
        assertNull(a.checkInvariants());
    }

    @Test
    public void outOfMemoryNamesTheDeviceTheRequestAndTheFreeBytesAndIsCounted() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        a.recordHistory(100, false);
        MemoryBlock held = a.allocate(4096, 0);
        long request = MIB + 1;
        assertNull("tryAllocate declines a block larger than any segment", a.tryAllocate(request, 0));
        assertEquals("a declined try is not an out-of-memory error", 0, stat(a, "num_ooms"));
        DeviceOutOfMemoryError e = assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(request, 0));
        String m = e.getMessage();
        assertTrue(m, m.startsWith("spyre:0 out of memory. Tried to allocate 1.00 MiB (" + request + " bytes)."));
        assertTrue(m, m.contains("of which " + dev.vantage.profiler.api.MemoryTracker.formatSize(8 * MIB - 4096) + " is free"));
        assertEquals(8 * MIB - 4096, e.free());
        assertEquals(4096, e.allocated());
        assertEquals(8 * MIB, e.reserved());
        assertEquals("spyre:0", e.device());
        assertEquals(1, stat(a, "num_ooms"));
        assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(request, 0));
        assertEquals(2, stat(a, "num_ooms"));
        List<TraceEntry> ooms = a.snapshot().deviceTraces().get(0).stream()
                .filter(t -> t.action().equals("oom")).collect(Collectors.toList());
        assertEquals(2, ooms.size());
        assertEquals(request, ooms.get(0).size());
        assertEquals(8 * MIB - 4096, ooms.get(0).deviceFree());
        a.free(held);
        assertNull(a.checkInvariants());
    }

    @Test
    public void theCapBoundsTheAllocatedBytes() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        a.limit(MIB);
        assertEquals(MIB, a.limit());
        MemoryBlock b = a.allocate(MIB - 1024, 0);
        assertNull("1 KiB is left under the cap", a.tryAllocate(2048, 0));
        DeviceOutOfMemoryError e = assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(2048, 0));
        assertEquals(1024, e.free());
        assertEquals(MIB, e.limit());
        assertTrue(e.getMessage(), e.getMessage().contains("limited to 1024.00 KiB"));
        assertNotNull(a.allocate(1024, 0));
        a.limit(0);
        assertNotNull("no cap", a.allocate(MIB, 0));
        a.free(b);
        assertNull(a.checkInvariants());
    }

    @Test
    public void recordsHistoryAndSnapshotsBlocksWithTheirFrames() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        a.recordHistory(100, true);
        MemoryBlock b = a.allocate(1000, 2);
        MemoryBlock c = a.allocate(5000, 0);
        a.free(c);
        MemorySnapshot s = a.snapshot();
        List<String> actions = s.deviceTraces().get(0).stream().map(TraceEntry::action).collect(Collectors.toList());
        assertEquals(List.of("alloc", "alloc", "free_requested", "free_completed", "snapshot"), actions);
        TraceEntry alloc = s.deviceTraces().get(0).get(0);
        assertEquals(b.address(), alloc.address());
        assertEquals(1024, alloc.size());
        assertEquals(2, alloc.stream());
        assertEquals("the innermost frame is the caller, not the allocator",
                getClass().getName() + ".recordsHistoryAndSnapshotsBlocksWithTheirFrames",
                alloc.frames().get(0).name());
        MemorySnapshot.Segment seg = s.segments().get(0);
        assertEquals(1024, seg.allocatedSize());
        assertEquals(1000, seg.requestedSize());
        MemorySnapshot.Block first = seg.blocks().get(0);
        assertEquals(MemorySnapshot.ACTIVE_ALLOCATED, first.state());
        assertEquals(1000, first.requestedSize());
        assertEquals(alloc.frames(), first.frames());
        assertEquals(MemorySnapshot.INACTIVE, seg.blocks().get(1).state());
        assertEquals("segment 1 is whole again after the free", 1, s.segments().get(1).blocks().size());
        a.free(b);
    }

    @Test
    public void reportsEveryAllocationAndFreeInOrder() {
        // an index of its own: other tests' cleaners may still report frees on spyre:0
        VfBlockAllocator a = new VfBlockAllocator(new Device("spyre", 3), table(8 * MIB));
        List<long[]> events = new ArrayList<>();
        List<long[]> ooms = new ArrayList<>();
        Object token = MemoryEvents.claim();
        try {
            MemoryEvents.publish(token, new MemorySink() {
                @Override
                public void allocated(String type, int index, long address, long bytes, long allocated,
                        long reserved) {
                    if (type.equals("spyre") && index == 3) {
                        events.add(new long[] {address, bytes, allocated, reserved});
                    }
                }

                @Override
                public void outOfMemory(String type, int index, long bytes, long allocated, long reserved) {
                    if (type.equals("spyre") && index == 3) {
                        ooms.add(new long[] {bytes, allocated, reserved});
                    }
                }
            });
            MemoryBlock x = a.allocate(100, 0);
            MemoryBlock y = a.allocate(300, 0);
            a.free(x);
            assertThrows(DeviceOutOfMemoryError.class, () -> a.allocate(2 * MIB, 0));
            a.free(y);
        } finally {
            MemoryEvents.release(token);
        }
        long r = 8 * MIB;
        assertEquals(4, events.size());
        assertEquals(List.of(BASE, 128L, 128L, r), box(events.get(0)));
        assertEquals(List.of(BASE + MIB, 384L, 512L, r), box(events.get(1)));
        assertEquals(List.of(BASE, -128L, 384L, r), box(events.get(2)));
        assertEquals(List.of(BASE + MIB, -384L, 0L, r), box(events.get(3)));
        assertEquals(1, ooms.size());
        assertEquals(List.of(2 * MIB, 384L, r), box(ooms.get(0)));
    }

    private static List<Long> box(long[] values) {
        List<Long> out = new ArrayList<>();
        for (long v : values) {
            out.add(v);
        }
        return out;
    }

    @Test
    public void rejectsForeignAndTwiceFreedBlocksAndBadRequests() {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        MemoryBlock b = a.allocate(100, 0);
        a.free(b);
        IllegalStateException twice = assertThrows(IllegalStateException.class, () -> a.free(b));
        assertTrue(twice.getMessage(), twice.getMessage().contains("spyre:0"));
        assertThrows(IllegalStateException.class, () -> a.free(new MemoryBlock(BASE, 128, 0, true)));
        assertThrows(IllegalStateException.class, () -> a.free(new MemoryBlock(16, 128, 0, true)));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> a.allocate(-1, 0));
        assertTrue(negative.getMessage(), negative.getMessage().contains("-1"));
        assertThrows(IllegalArgumentException.class, () -> a.tryAllocate(1, -2));
        assertNull(a.tryAllocate(Long.MAX_VALUE, 0));
        assertNull(a.checkInvariants());
    }

    @Test
    public void awaitFreeReturnsWhenABlockIsFreed() throws Exception {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table(8 * MIB));
        MemoryBlock b = a.allocate(100, 0);
        long seen = a.frees();
        assertFalse(a.awaitFree(seen, 1_000_000));
        Thread t = new Thread(() -> a.free(b));
        t.start();
        assertTrue(a.awaitFree(seen, 10_000_000_000L));
        t.join();
        assertEquals(seen + 1, a.frees());
    }
}
