package dev.vantage.device.mps.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.Reference;
import java.util.Map;

import org.junit.Test;

import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.Storage;

/** The emulated driver's unified memory, settings, properties and clock. */
public class EmulatedMetalDriverTest {

    @Test
    public void reportsTheThreeUnifiedMemoryNumbersAndTorchsStats() {
        EmulatedMetalDriver driver = new EmulatedMetalDriver(Map.of("capacity.mib", "64"));
        try {
            assertEquals("three quarters of unified memory", 48L << 20, driver.recommendedMaxMemory(0));
            long before = driver.currentAllocatedMemory(0);
            Storage s = driver.newBuffer(0, DType.FLOAT32, 1 << 18);
            long current = driver.currentAllocatedMemory(0);
            long held = driver.driverAllocatedMemory(0);
            assertEquals("a 1 MiB buffer", 1L << 20, current - before);
            assertTrue("the driver holds whole heaps: " + held, held >= current && held % EmulatedMetalDriver.HEAP == 0);
            MemoryStats stats = new MpsAllocator(driver).stats();
            assertEquals("mps:0", stats.device());
            assertEquals(Long.valueOf(current), stats.values().get("current_allocated_memory"));
            assertEquals(Long.valueOf(held), stats.values().get("driver_allocated_memory"));
            assertEquals(Long.valueOf(48L << 20), stats.values().get("recommended_max_memory"));
            assertEquals(Long.valueOf(current), stats.values().get("allocated_bytes.all.current"));
            assertEquals(Long.valueOf(held), stats.values().get("reserved_bytes.all.current"));
            assertTrue(stats.values().get("allocation.all.current") >= 1);
            assertEquals(1 << 18, s.size());
            Reference.reachabilityFence(s);
        } finally {
            driver.close();
        }
    }

    @Test
    public void runningOutOfUnifiedMemoryNamesTheDeviceTheRequestAndTheFreeBytes() {
        EmulatedMetalDriver driver = new EmulatedMetalDriver(Map.of("capacity.mib", "16"));
        try {
            OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                    () -> driver.newBuffer(0, DType.FLOAT32, 5 << 20));
            assertTrue(e.getMessage(), e.getMessage().contains("mps:0"));
            assertTrue(e.getMessage(), e.getMessage().contains(Long.toString(20L << 20)));
            assertTrue(e.getMessage(), e.getMessage().contains("free"));
            assertEquals(Long.valueOf(1), driver.memoryStats(0).values().get("num_ooms"));
        } finally {
            driver.close();
        }
    }

    @Test
    public void settingsComeFromTheComponentElseFromSystemProperties() {
        EmulatedMetalDriver configured = new EmulatedMetalDriver(Map.of("streams", "5", "commit.commands", "3"));
        assertEquals(5, configured.streamCount(0));
        assertEquals("3", configured.properties(0).get("adaptiveCommitCommands"));
        configured.close();
        System.setProperty("vantage.mps.streams", "7");
        try {
            EmulatedMetalDriver fromProperty = new EmulatedMetalDriver(Map.of());
            assertEquals(7, fromProperty.streamCount(0));
            fromProperty.close();
            EmulatedMetalDriver both = new EmulatedMetalDriver(Map.of("streams", "2"));
            assertEquals("the component wins", 2, both.streamCount(0));
            both.close();
        } finally {
            System.clearProperty("vantage.mps.streams");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new EmulatedMetalDriver(Map.of("streams", "zero")));
        assertEquals("mps setting streams must be a positive integer, not 'zero'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new EmulatedMetalDriver(Map.of("capacity.mib", "-1")));
    }

    @Test
    public void describesAnEmulatedUnifiedMemoryDeviceWithAMachLikeClock() {
        EmulatedMetalDriver driver = new EmulatedMetalDriver(Map.of("capacity.mib", "64"));
        try {
            assertEquals("mps", driver.deviceType());
            assertEquals(1, driver.deviceCount());
            assertTrue(driver.emulated());
            Map<String, String> p = driver.properties(0);
            assertEquals("true", p.get("hasUnifiedMemory"));
            assertEquals(Long.toString(48L << 20), p.get("recommendedMaxWorkingSetSize"));
            assertEquals("32", p.get("streams"));
            assertEquals("emulated", p.get("driver"));
            assertEquals(24_000_000, driver.timestampFrequency(0));
            long t0 = driver.deviceTimestamp(0);
            long t1 = driver.deviceTimestamp(0);
            assertTrue(t1 >= t0);
            assertThrows(IllegalArgumentException.class, () -> driver.properties(1));
            assertThrows(IllegalArgumentException.class, () -> driver.openCommands(0, 32));
        } finally {
            driver.close();
        }
    }
}
