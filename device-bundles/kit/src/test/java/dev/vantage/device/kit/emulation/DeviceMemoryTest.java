package dev.vantage.device.kit.emulation;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.junit.Test;

import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.DeviceOutOfMemoryError;
import dev.vantage.device.kit.memory.EmulatedHeap;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/** Device memory: storages over the caching allocator, the capacity, and the counters. */
public class DeviceMemoryTest {

    private final Device npu = new Device("npu", 0);

    private DeviceMemory memory(long capacity) {
        return new DeviceMemory(npu, new CachingAllocator(npu, new EmulatedHeap(0x1000_0000L, capacity)));
    }

    @Test
    public void storagesGetRoundedBlocksFromOneSmallSegment() {
        DeviceMemory m = memory(16L << 20);
        Storage a = m.allocate(DType.FLOAT32, 3);
        Storage b = m.allocate(DType.INT64, 200);
        DeviceBlock ba = (DeviceBlock) a.handle();
        DeviceBlock bb = (DeviceBlock) b.handle();
        assertEquals(512, ba.bytes());
        assertEquals(12, ba.requested());
        assertEquals(2048, bb.bytes());
        assertEquals(0x1000_0000L, ba.address());
        assertEquals(ba.address() + 512, bb.address());
        Map<String, Long> v = m.stats().values();
        assertEquals(2560, (long) v.get("allocated_bytes.all.current"));
        assertEquals(12 + 1600, (long) v.get("requested_bytes.all.current"));
        assertEquals(2L << 20, (long) v.get("reserved_bytes.all.current"));
        assertEquals(1, (long) v.get("segment.small_pool.current"));
        assertEquals(2, (long) v.get("allocation.all.current"));
        assertEquals(npu, a.device());
        assertEquals(3, a.floats().length);
    }

    @Test
    public void askingForMoreThanTheDeviceHasFailsWithTorchsMessage() {
        DeviceMemory m = memory(24L << 20);
        Storage kept = m.allocate(DType.FLOAT32, 1 << 20);
        DeviceOutOfMemoryError e = assertThrows(DeviceOutOfMemoryError.class,
                () -> m.allocate(DType.FLOAT32, 5 << 20));
        assertEquals("npu:0 out of memory. Tried to allocate 20.00 MiB (20971520 bytes). npu:0 has a total capacity"
                + " of 24.00 MiB of which 4.00 MiB is free. Of the allocated memory 4.00 MiB is allocated by tensors,"
                + " and 16.00 MiB is reserved by the caching allocator but unallocated.", e.getMessage());
        assertEquals(1, (long) m.stats().values().get("num_ooms"));
        assertTrue(m.stats().values().get("num_alloc_retries") >= 1);
        assertEquals(1 << 20, kept.size());
    }

    @Test
    public void aSmallRequestUnderATightCapSaysItNeedsAWholeSegment() {
        DeviceMemory m = memory(8L << 30);
        m.allocator().limit(1L << 20);
        // 784 KiB is less than the 1024 KiB free under the cap, but a small request takes a 2 MiB segment
        DeviceOutOfMemoryError e = assertThrows(DeviceOutOfMemoryError.class,
                () -> m.allocate(DType.FLOAT32, 200_704));
        assertEquals("npu:0 out of memory. Tried to allocate 784.00 KiB (802816 bytes), which needs a new segment of"
                + " 2.00 MiB. npu:0 has a total capacity of 8.00 GiB, limited to 1024.00 KiB for this process, of"
                + " which 1024.00 KiB is free. Of the allocated memory 0 bytes is allocated by tensors, and 0 bytes is"
                + " reserved by the caching allocator but unallocated.", e.getMessage());
        // the figures add up: reserved and free make the cap, and the segment asked for is more than is free
        assertEquals(e.limit(), e.reserved() + e.free());
        assertTrue(e.segment() > e.free());
        assertEquals(802816, e.requested());
    }

    @Test
    public void aReleasedStorageGivesItsBlockBackAtOnce() {
        DeviceMemory m = memory(16L << 20);
        Storage a = m.allocate(DType.FLOAT32, 1000);
        assertEquals(4096, (long) m.stats().values().get("allocated_bytes.all.current"));
        a.release();
        assertEquals(0, (long) m.stats().values().get("allocated_bytes.all.current"));
        assertEquals(1, m.allocator().frees());
        assertTrue(a.isFreed());
        assertThrows(IllegalStateException.class, a::retain);
    }

    @Test
    public void garbageCollectedStoragesGiveTheirBlocksBack() {
        DeviceMemory m = memory(64L << 20);
        for (int i = 0; i < 50; i++) {
            // 50 x 16 MiB on a 64 MiB device: only reclaiming unreachable storages lets this finish
            Storage s = m.allocate(DType.FLOAT32, 4 << 20);
            assertEquals(4 << 20, s.size());
        }
        assertTrue(m.stats().values().get("reserved_bytes.all.peak") <= 64L << 20);
    }

    @Test
    public void refusesABadConfiguration() {
        assertThrows(IllegalArgumentException.class, () -> new EmulatedHeap(0, 0));
        assertThrows(IllegalArgumentException.class, () -> m(1024));
        assertEquals(1 << 20, memory(1 << 20).free());
    }

    @SuppressWarnings("deprecation")
    private DeviceMemory m(int alignment) {
        return new DeviceMemory(npu, 1 << 20, alignment, 1 << 20, 0);
    }
}
