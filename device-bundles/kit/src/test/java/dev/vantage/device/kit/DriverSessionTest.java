package dev.vantage.device.kit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;

/**
 * The session over a driver whose records are made up: device ticks are host nanoseconds plus a fixed offset, so
 * every conversion, join and count has one right answer.
 */
public class DriverSessionTest {

    private static final long OFFSET = 5_000_000_000L;

    /** A driver whose records the test writes, with a clock at host time plus {@link #OFFSET}. */
    private static class ScriptedDriver implements TracingDriver {
        final List<ActivityRecord> records = new ArrayList<>();
        final List<Long> pushed = new ArrayList<>();
        long max;
        boolean enabled;

        @Override
        public String deviceType() {
            return "npu";
        }

        @Override
        public int deviceCount() {
            return 1;
        }

        @Override
        public boolean emulated() {
            return true;
        }

        @Override
        public Map<String, String> properties(int device) {
            return Map.of("name", "scripted");
        }

        @Override
        public void enableActivity(long maxRecords) {
            max = maxRecords;
            enabled = true;
        }

        @Override
        public void disableActivity() {
            enabled = false;
        }

        @Override
        public List<ActivityRecord> flushActivity() {
            return records;
        }

        @Override
        public long droppedRecords() {
            return 3;
        }

        @Override
        public void pushExternalCorrelation(long id) {
            pushed.add(id);
        }

        @Override
        public void popExternalCorrelation() {
            pushed.add(-1L);
        }

        @Override
        public long deviceTimestamp(int device) {
            return System.nanoTime() + OFFSET;
        }

        @Override
        public long timestampFrequency(int device) {
            return 1_000_000_000;
        }

        @Override
        public boolean synchronizeDevice(int device, long timeoutNanos) {
            return true;
        }
    }

    private static ActivityRecord launch(long correlation, long start, long external) {
        return new ActivityRecord(EventKind.RUNTIME, "launch", 0, 1, start, start + 10, correlation, external, 77,
                Map.of());
    }

    private static ActivityRecord kernel(long correlation, long hostStart) {
        return new ActivityRecord(EventKind.KERNEL, "k" + correlation, 0, 1, hostStart + OFFSET,
                hostStart + OFFSET + 100, correlation, -1, -1, Map.of("Block Num", "4"));
    }

    @Test
    public void joinsWorkToLaunchesCalibratesAndCountsWhatItCannotKeep() throws Exception {
        ScriptedDriver driver = new ScriptedDriver();
        DriverSession session = new DriverSession(driver, Map.of(DriverSession.MAX_RECORDS, "99"));
        long before = System.nanoTime();
        session.start();
        session.pushCorrelation(41);
        session.popCorrelation();
        long t = System.nanoTime() + 1_000;
        while (System.nanoTime() < t + 2_000) {
            Thread.onSpinWait();
        }
        driver.records.add(launch(1, t, 41));
        driver.records.add(kernel(1, t + 500));
        driver.records.add(launch(2, before - 1_000_000, 40));   // launched before the window
        driver.records.add(kernel(2, t + 600));
        driver.records.add(kernel(3, t + 700));                  // its launch record is missing
        driver.records.add(launch(4, t + 800, 42));
        driver.records.add(kernel(4, t + 100));                  // appears to start before its launch
        session.stop();
        DeviceActivities d = session.collect();

        assertEquals(99, driver.max);
        assertEquals(List.of(41L, -1L), driver.pushed);
        DeviceActivity k1 = d.activities().stream().filter(a -> a.name().equals("k1")).findFirst().orElseThrow();
        assertEquals(41, k1.correlationId());
        assertEquals(77, k1.launchThreadId());
        assertEquals(1, k1.flowId());
        assertEquals(t + 500, k1.startNanos(), d.metadata().containsKey("clock_error_bound_ns")
                ? Long.parseLong(d.metadata().get("clock_error_bound_ns")) : 0);
        assertEquals("4", k1.args().get("Block Num"));
        DeviceActivity k3 = d.activities().stream().filter(a -> a.name().equals("k3")).findFirst().orElseThrow();
        assertEquals(-1, k3.correlationId());
        assertEquals(-1, k3.flowId());
        assertTrue(d.activities().stream().noneMatch(a -> a.name().equals("k2")));
        assertEquals("2", d.metadata().get("out_of_window_records"));
        assertEquals("1", d.metadata().get("unlinked_records"));
        assertEquals("3", d.metadata().get("buffer_dropped_records"));
        assertEquals("true", d.metadata().get("emulated"));
        assertEquals(5, d.droppedRecords());
        assertTrue(d.errors().toString(), d.errors().stream().anyMatch(e -> e.startsWith("1 device records start"
                + " before their launch")));
        assertTrue(d.errors().toString(), d.errors().stream().anyMatch(e -> e.startsWith("3 activity records"
                + " dropped")));
        assertEquals(1, d.devices().size());
        assertTrue(d.devices().get(0).emulated());
    }

    /** A vendor's driver: not emulated, its device clock 2 s behind the host's instead of 5 s ahead. */
    private static final class NativeDriver extends ScriptedDriver {
        static final long NATIVE_OFFSET = -2_000_000_000L;

        @Override
        public boolean emulated() {
            return false;
        }

        @Override
        public long deviceTimestamp(int device) {
            return System.nanoTime() + NATIVE_OFFSET;
        }
    }

    private static void spinPast(long hostNanos) {
        while (System.nanoTime() <= hostNanos) {
            Thread.onSpinWait();
        }
    }

    @Test
    public void aDriverSwapWhileRecordingKeepsBothDriversEventsEachOnItsOwnClock() {
        ScriptedDriver emulated = new ScriptedDriver();
        NativeDriver vendor = new NativeDriver();
        DriverSession session = new DriverSession(emulated, Map.of());
        session.start();
        long t1 = System.nanoTime();
        session.pushCorrelation(41);
        emulated.records.add(launch(1, t1, 41));
        emulated.records.add(kernel(1, t1 + 500));
        session.popCorrelation();
        spinPast(t1 + 2_000);

        session.swapDriver(vendor);
        assertTrue("the incoming driver records", vendor.enabled);
        assertTrue("the outgoing driver stopped recording", !emulated.enabled);
        assertEquals(vendor, session.driver());
        long t2 = System.nanoTime();
        session.pushCorrelation(51);
        // the vendor's driver counts correlation ids from its own start, so its first launch is 1 again
        vendor.records.add(launch(1, t2, 51));
        vendor.records.add(new ActivityRecord(EventKind.KERNEL, "vendor-k1", 0, 1, t2 + 500 + NativeDriver.NATIVE_OFFSET,
                t2 + 600 + NativeDriver.NATIVE_OFFSET, 1, -1, -1, Map.of()));
        session.popCorrelation();
        spinPast(t2 + 2_000);
        session.stop();
        DeviceActivities d = session.collect();

        assertEquals(List.of(41L, -1L), emulated.pushed);
        assertEquals(List.of(51L, -1L), vendor.pushed);
        DeviceActivity before = d.activities().stream().filter(a -> a.name().equals("k1")).findFirst().orElseThrow();
        DeviceActivity after = d.activities().stream().filter(a -> a.name().equals("vendor-k1")).findFirst()
                .orElseThrow();
        long bound = Long.parseLong(d.metadata().get("clock_error_bound_ns"));
        assertEquals(41, before.correlationId());
        assertEquals(51, after.correlationId());
        // each on its own clock: the two drivers' clocks are 7 s apart, so a record converted with the other
        // driver's calibration would be seconds off; the slack covers a busy machine moving the thread between CPUs
        assertEquals(t1 + 500, before.startNanos(), bound + 1_000);
        assertEquals(t2 + 500, after.startNanos(), bound + 1_000);
        assertTrue("each driver's work keeps a flow of its own", before.flowId() > 0 && after.flowId() > 0
                && before.flowId() != after.flowId());
        long launchesWithFlows = d.activities().stream().filter(a -> a.kind() == EventKind.RUNTIME)
                .filter(a -> a.flowId() == before.flowId() || a.flowId() == after.flowId()).count();
        assertEquals("both launches carry their work's flow", 2, launchesWithFlows);
        assertEquals("1", d.metadata().get("driver_swaps"));
        String swap = d.metadata().get("driver_swap.1");
        assertTrue(swap, swap.contains("ScriptedDriver (emulated) -> ")
                && swap.contains("NativeDriver (native)"));
        assertEquals("false", d.metadata().get("emulated"));
        assertEquals(4 + "", d.metadata().get("records"));
        assertTrue(!d.devices().get(0).emulated());
    }

    @Test
    public void aSwapBeforeStartOrAfterStopRecordsNoSwap() {
        ScriptedDriver first = new ScriptedDriver();
        NativeDriver second = new NativeDriver();
        DriverSession session = new DriverSession(first, Map.of());
        session.swapDriver(second);
        session.start();
        assertTrue(second.enabled);
        session.stop();
        session.swapDriver(first);
        assertEquals(second, session.driver());
        assertEquals(null, session.collect().metadata().get("driver_swaps"));
    }

    @Test
    public void refusesABadBufferSize() {
        assertThrows(IllegalArgumentException.class,
                () -> new DriverSession(new ScriptedDriver(), Map.of(DriverSession.MAX_RECORDS, "lots")));
        assertThrows(IllegalArgumentException.class,
                () -> new DriverSession(new ScriptedDriver(), Map.of(DriverSession.MAX_RECORDS, "0")));
    }
}
