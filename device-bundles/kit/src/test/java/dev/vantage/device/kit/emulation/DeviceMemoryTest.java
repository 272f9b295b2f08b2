package dev.vantage.device.kit.emulation;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/** Device memory: alignment, pages, the capacity, and the counters. */
public class DeviceMemoryTest {

    private final Device npu = new Device("npu", 0);

    @Test
    public void blocksAreAlignedAndReservedInPages() {
        DeviceMemory m = new DeviceMemory(npu, 16L << 20, 32, 2L << 20, 0x1000);
        Storage a = m.allocate(DType.FLOAT32, 3);
        Storage b = m.allocate(DType.INT64, 5);
        DeviceBlock ba = (DeviceBlock) a.handle();
        DeviceBlock bb = (DeviceBlock) b.handle();
        assertEquals(32, ba.bytes());
        assertEquals(12, ba.requested());
        assertEquals(64, bb.bytes());
        assertEquals(0, ba.address() % 32);
        assertEquals(ba.address() + 32, bb.address());
        Map<String, Long> v = m.stats().values();
        assertEquals(96, (long) v.get("allocated_bytes.all.current"));
        assertEquals(2L << 20, (long) v.get("reserved_bytes.all.current"));
        assertEquals(2, (long) v.get("allocation.all.current"));
        assertEquals(npu, a.device());
        assertEquals(3, a.floats().length);
    }

    @Test
    public void askingForMoreThanIsFreeNamesTheDeviceTheRequestAndTheFreeBytes() {
        DeviceMemory m = new DeviceMemory(npu, 1 << 20, 32, 1 << 20, 0);
        Storage kept = m.allocate(DType.FLOAT32, 200_000);
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class, () -> m.allocate(DType.FLOAT32, 100_000));
        assertEquals("npu:0 out of memory: tried to allocate 400000 bytes; 248576 bytes free of 1048576 (800000"
                + " allocated)", e.getMessage());
        assertEquals(1, (long) m.stats().values().get("num_ooms"));
        assertEquals(1, (long) m.stats().values().get("num_alloc_retries"));
        assertEquals(200_000, kept.size());
    }

    @Test
    public void refusesABadConfiguration() {
        assertThrows(IllegalArgumentException.class, () -> new DeviceMemory(npu, 1 << 20, 24, 1 << 20, 0));
        assertThrows(IllegalArgumentException.class, () -> new DeviceMemory(npu, 0, 32, 1 << 20, 0));
        assertTrue(new DeviceMemory(npu, 1, 1, 1, 0).free() == 1);
    }
}
