package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.Reference;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.device.kit.emulation.DeviceBlock;
import dev.vantage.device.kit.memory.DeviceOutOfMemoryError;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.Storage;

/**
 * Device memory through the driver: 128-byte blocks from VF segments all reserved at initialisation, counted, a
 * torch-style out-of-memory error, and the block allocator behind the allocator component.
 */
public class SpyreMemoryTest {

    private static final long MIB = 1 << 20;

    private EmulatedSpyreDriver driver;

    @Rule
    public final TestSupport.Drivers drivers = new TestSupport.Drivers();

    @Test
    public void blocksAreRoundedTo128BytesFromSegmentsAllReservedAtInitialisation() {
        driver = drivers.open(Map.of("capacity.mib", "1"));
        SpyreAllocator allocator = new SpyreAllocator(driver);
        Storage s = driver.malloc(0, DType.FLOAT32, 1000);
        Map<String, Long> v = allocator.stats().values();
        assertEquals("4000 bytes take 32 blocks of 128", 4096L, (long) v.get("allocated_bytes.all.current"));
        assertEquals("all 8 segments are reserved at initialisation", MIB, (long) v.get("reserved_bytes.all.current"));
        assertEquals(8L, (long) v.get("segment.all.current"));
        assertEquals(1L, (long) v.get("allocation.all.current"));
        assertEquals(Long.toString(MIB / 8), driver.properties(0).get("segmentSize"));
        Reference.reachabilityFence(s);
    }

    @Test
    public void outOfMemoryNamesTheDeviceTheRequestAndTheFreeBytes() {
        driver = drivers.open(Map.of("capacity.mib", "1"));
        Storage held = driver.malloc(0, DType.FLOAT32, 1000);
        int elements = (1 << 18) + 1;
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> driver.malloc(0, DType.FLOAT32, elements));
        String m = e.getMessage();
        assertTrue(m, m.startsWith("spyre:0 out of memory. Tried to allocate 1.00 MiB (" + 4L * elements + " bytes)"));
        assertTrue(m, m.contains("of which " + dev.vantage.profiler.api.MemoryTracker.formatSize(MIB - 4096) + " is free"));
        assertEquals("every block but the one held is free", MIB - 4096, ((DeviceOutOfMemoryError) e).free());
        assertEquals(1L, (long) driver.memoryStats(0).values().get("num_ooms"));
        Reference.reachabilityFence(held);
    }

    @Test
    public void theAllocatorComponentRecordsSnapshotsAndCapsTheDevicesMemory() {
        driver = drivers.open(Map.of("capacity.mib", "8"));
        SpyreAllocator allocator = new SpyreAllocator(driver);
        assertTrue(allocator.recordHistory(50, false));
        assertTrue("recording history acts on the card's allocator, so it initialises the card",
                driver.initialized(0));
        Storage s = driver.malloc(0, DType.FLOAT32, 300);
        DeviceBlock block = (DeviceBlock) s.handle();
        MemorySnapshot snapshot = allocator.snapshot();
        assertEquals(8, snapshot.segments().size());
        MemorySnapshot.Segment first = snapshot.segments().get(0);
        assertEquals(block.address(), first.address());
        assertEquals(1280, first.allocatedSize());
        assertEquals(1200, first.requestedSize());
        assertEquals(MemorySnapshot.ACTIVE_ALLOCATED, first.blocks().get(0).state());
        assertEquals("alloc", snapshot.deviceTraces().get(0).get(0).action());
        assertEquals(8 * MIB, allocator.capacity());
        assertTrue(allocator.limit(4096));
        assertThrows(OutOfMemoryError.class, () -> driver.malloc(0, DType.FLOAT32, 1024));
        assertTrue(allocator.limit(0));
        Reference.reachabilityFence(driver.malloc(0, DType.FLOAT32, 1024));
        Reference.reachabilityFence(s);
    }
}
