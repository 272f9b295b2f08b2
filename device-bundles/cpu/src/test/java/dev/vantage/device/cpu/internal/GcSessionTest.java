package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Set;
import java.util.Map;

import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;

public class GcSessionTest {

    private final JvmActivitySource source = new JvmActivitySource();

    @Test
    public void recordsAGarbageCollectionPauseOnTheHostClock() throws Exception {
        ActivitySession session = source.configure(Set.of(Activity.CPU), Map.of());
        session.start();
        long before = System.nanoTime();
        System.gc();
        // notifications arrive on the management thread: wait for the pause, at most 20 s
        long deadline = System.nanoTime() + 20_000_000_000L;
        DeviceActivities collected = ((GcSession) session).collect();
        while (collected.activities().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
            collected = ((GcSession) session).collect();
        }
        long after = System.nanoTime();
        session.stop();
        DeviceActivities d = session.collect();
        assertTrue("no GC pause was reported", !d.activities().isEmpty());
        DeviceActivity pause = d.activities().get(0);
        assertEquals(EventKind.GC, pause.kind());
        assertTrue(pause.name(), pause.name().startsWith("GC: ") && pause.name().contains("System.gc()"));
        assertTrue(pause.endNanos() >= pause.startNanos());
        // two whole-millisecond values place a pause within 2 ms
        assertTrue("pause at " + pause.startNanos() + " outside [" + before + ", " + after + "]",
                pause.startNanos() >= before - 2_000_000 && pause.startNanos() <= after + 2_000_000);
        assertEquals("2 ms (GC notifications)", d.metadata().get("gc_time_resolution"));
        assertEquals(-1, pause.correlationId());
    }

    @Test
    public void takesPartOnlyInCpuProfiles() {
        assertNull(source.configure(Set.of(Activity.NPU), Map.of()));
        assertEquals(Activity.CPU, source.activity());
        assertEquals("jvm", source.deviceType());
    }
}
