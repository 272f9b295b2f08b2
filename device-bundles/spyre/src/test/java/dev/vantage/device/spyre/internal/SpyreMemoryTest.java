package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.Reference;
import java.util.Map;

import org.junit.After;
import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.Storage;

/** Device memory: 128-byte blocks reserved in VF segments, counted, and a clear out-of-memory error. */
public class SpyreMemoryTest {

    private static final long MIB = 1 << 20;

    private EmulatedSpyreDriver driver;

    @After
    public void close() {
        if (driver != null) {
            driver.close();
        }
    }

    @Test
    public void blocksAreRoundedTo128BytesAndReservedInSegments() {
        driver = new EmulatedSpyreDriver(Map.of("capacity.mib", "1"));
        SpyreAllocator allocator = new SpyreAllocator(driver);
        Storage s = driver.malloc(0, DType.FLOAT32, 1000);
        Map<String, Long> v = allocator.stats().values();
        assertEquals("4000 bytes take 32 blocks of 128", 4096L, (long) v.get("allocated_bytes.all.current"));
        assertEquals("one of 8 segments of 1 MiB", MIB / 8, (long) v.get("reserved_bytes.all.current"));
        assertEquals(1L, (long) v.get("allocation.all.current"));
        assertEquals(Long.toString(MIB / 8), driver.properties(0).get("segmentSize"));
        Reference.reachabilityFence(s);
    }

    @Test
    public void outOfMemoryNamesTheDeviceTheRequestAndTheFreeBytes() {
        driver = new EmulatedSpyreDriver(Map.of("capacity.mib", "1"));
        Storage held = driver.malloc(0, DType.FLOAT32, 1000);
        int elements = (1 << 18) + 1;
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> driver.malloc(0, DType.FLOAT32, elements));
        String m = e.getMessage();
        assertTrue(m, m.contains("spyre:0"));
        assertTrue(m, m.contains(Long.toString(4L * elements)));
        assertTrue(m, m.contains((MIB - 4096) + " bytes free"));
        assertEquals(1L, (long) driver.memoryStats(0).values().get("num_ooms"));
        Reference.reachabilityFence(held);
    }
}
