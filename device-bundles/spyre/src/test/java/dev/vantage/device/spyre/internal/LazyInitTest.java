package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.Storage;

/** A device initialises at its first use, once, and shows in a recording profile when it does. */
public class LazyInitTest {

    private EmulatedSpyreDriver driver;

    @Rule
    public final TestSupport.Drivers drivers = new TestSupport.Drivers();

    @Test
    public void creatingTheDriverAndQueryingItInitialisesNoDevice() {
        int before = TestSupport.streamThreads(0);
        driver = drivers.open(Map.of("capacity.mib", "64", "streams", "3"));
        assertFalse(driver.initialized(0));
        assertEquals("64 MiB", Long.toString(64L << 20), driver.properties(0).get("totalGlobalMem"));
        assertEquals(0L, (long) driver.memoryStats(0).values().get("allocated_bytes.all.current"));
        SpyreAllocator allocator = new SpyreAllocator(driver);
        assertEquals("no segment is reserved before the card initialises", 0L,
                (long) allocator.stats().values().get("reserved_bytes.all.current"));
        assertEquals(0L, (long) allocator.stats().values().get("segment.all.current"));
        assertTrue(allocator.snapshot().segments().isEmpty());
        assertEquals(64L << 20, allocator.capacity());
        allocator.emptyCache();
        allocator.resetAccumulatedStats();
        driver.resetPeakMemoryStats(0);
        assertEquals(3, driver.streamCount(0));
        driver.setCurrentStream(0, 2);
        assertEquals(2, driver.currentStream(0));
        assertTrue(driver.synchronizeDevice(0, 1_000_000));
        assertTrue(driver.deviceTimestamp(0) > 0);
        assertFalse("a query initialised the device", driver.initialized(0));
        assertEquals("no stream worker may start before the device initialises", before,
                TestSupport.streamThreads(0));
    }

    @Test
    public void theFirstAllocationInitialisesTheDeviceOnceAndStartsItsStreams() {
        int before = TestSupport.streamThreads(0);
        try (TestSupport.Log log = new TestSupport.Log()) {
            driver = drivers.open(Map.of("capacity.mib", "64", "streams", "3"));
            Storage first = driver.malloc(0, DType.FLOAT32, 16);
            assertTrue(driver.initialized(0));
            assertEquals(before + 3, TestSupport.streamThreads(0));
            Storage second = driver.malloc(0, DType.FLOAT32, 16);
            assertEquals(before + 3, TestSupport.streamThreads(0));
            List<String> inits = initMessages(log);
            assertEquals(inits.toString(), 1, inits.size());
            assertTrue(inits.get(0), inits.get(0).matches("spyre:0 initialised in \\d+\\.\\d{3} ms .*"));
            Map<String, Long> v = driver.memoryStats(0).values();
            assertEquals(256L, (long) v.get("allocated_bytes.all.current"));
            assertEquals("initialising reserved all 8 segments", 64L << 20, (long) v.get("reserved_bytes.all.current"));
            assertEquals(8L, (long) v.get("segment.all.current"));
            java.lang.ref.Reference.reachabilityFence(first);
            java.lang.ref.Reference.reachabilityFence(second);
        }
        driver.close();
        assertEquals("closing stops the stream workers", before, TestSupport.streamThreads(0));
    }

    @Test
    public void devicesInitialiseIndependently() {
        driver = drivers.open(Map.of("capacity.mib", "64", "devices", "2"));
        driver.malloc(1, DType.FLOAT32, 4);
        assertTrue(driver.initialized(1));
        assertFalse(driver.initialized(0));
        driver.initialize(0);
        assertTrue(driver.initialized(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> driver.initialized(2));
        assertTrue(e.getMessage(), e.getMessage().contains("no spyre device 2; there are 2"));
    }

    @Test
    public void manyThreadsUsingTheDeviceAtOnceInitialiseItOnce() throws Exception {
        int before = TestSupport.streamThreads(0);
        try (TestSupport.Log log = new TestSupport.Log()) {
            driver = drivers.open(Map.of("capacity.mib", "64", "streams", "2"));
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                        driver.malloc(0, DType.FLOAT32, 8);
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                t.start();
                threads.add(t);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(List.of(), failures);
            assertEquals(1, initMessages(log).size());
            assertEquals(before + 2, TestSupport.streamThreads(0));
        }
    }

    @Test
    public void aClosedDriverInitialisesNothing() {
        driver = drivers.open(Map.of("capacity.mib", "64"));
        driver.close();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> driver.malloc(0, DType.FLOAT32, 4));
        assertTrue(e.getMessage(), e.getMessage().contains("closed") && e.getMessage().contains("spyre:0"));
        assertFalse(driver.initialized(0));
    }

    @Test
    public void initialisationWhileRecordingLeavesOneRuntimeRecordUnderTheCurrentOp() {
        driver = drivers.open(Map.of("capacity.mib", "64"));
        ActivitySession session = new SpyreActivitySource(driver).configure(Set.of(Activity.SPYRE), Map.of());
        session.start();
        long begin = System.nanoTime();
        session.pushCorrelation(7);
        Storage a = driver.malloc(0, DType.FLOAT32, 16);
        session.popCorrelation();
        Storage b = driver.malloc(0, DType.FLOAT32, 16);
        driver.initialize(0);
        long end = System.nanoTime();
        session.stop();
        DeviceActivities d = session.collect();
        List<DeviceActivity> inits = named(d, EmulatedSpyreDriver.API_INIT);
        assertEquals(d.activities().toString(), 1, inits.size());
        DeviceActivity init = inits.get(0);
        assertEquals(EventKind.RUNTIME, init.kind());
        assertEquals("the op that was running when the device initialised", 7, init.correlationId());
        assertEquals(Thread.currentThread().getId(), init.launchThreadId());
        assertTrue(init.startNanos() >= begin && init.endNanos() <= end);
        assertEquals("on the default stream, 1 in traces", 1, init.streamId());
        assertEquals("4", init.args().get("streams"));
        assertEquals(Integer.toString(VfSegmentTable.SEGMENTS), init.args().get("vf_segments"));
        java.lang.ref.Reference.reachabilityFence(a);
        java.lang.ref.Reference.reachabilityFence(b);
    }

    @Test
    public void aDeviceInitialisedBeforeTheProfileLeavesNoInitRecord() {
        driver = drivers.open(Map.of("capacity.mib", "64"));
        driver.initialize(0);
        ActivitySession session = new SpyreActivitySource(driver).configure(Set.of(Activity.SPYRE), Map.of());
        session.start();
        Storage a = driver.malloc(0, DType.FLOAT32, 16);
        session.stop();
        assertEquals(List.of(), named(session.collect(), EmulatedSpyreDriver.API_INIT));
        java.lang.ref.Reference.reachabilityFence(a);
    }

    private static List<String> initMessages(TestSupport.Log log) {
        List<String> out = new ArrayList<>();
        for (String m : log.messages(Level.INFO)) {
            if (m.contains("initialised")) {
                out.add(m);
            }
        }
        return out;
    }

    private static List<DeviceActivity> named(DeviceActivities d, String name) {
        List<DeviceActivity> out = new ArrayList<>();
        for (DeviceActivity a : d.activities()) {
            if (a.name().equals(name)) {
                out.add(a);
            }
        }
        return out;
    }
}
