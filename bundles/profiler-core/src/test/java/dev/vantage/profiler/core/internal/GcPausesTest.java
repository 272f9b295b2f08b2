package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.trace.EventKind;

/**
 * A JVM pause stops every thread; it is no op. It stays on the trace's JVM row, and the op table counts it under the
 * table instead of as a row whose time adds to {@code Self CPU time total}.
 */
public class GcPausesTest {

    /** A source as the CPU bundle's JVM source is: activity CPU, device type jvm, pauses as GC activities. */
    private static final class Pauses implements DeviceActivitySource, ActivitySession {
        final List<DeviceActivity> pauses = new ArrayList<>();

        @Override
        public Activity activity() {
            return Activity.CPU;
        }

        @Override
        public String deviceType() {
            return "jvm";
        }

        @Override
        public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
            return this;
        }

        @Override
        public void start() {
        }

        @Override
        public void stop() {
        }


        void pause(String name, long nanos) {
            long start = System.nanoTime();
            pauses.add(new DeviceActivity(name, EventKind.GC, 0, -1, start, start + nanos, -1, -1, -1));
        }

        @Override
        public DeviceActivities collect() {
            return new DeviceActivities(List.of(), pauses, Map.of(), List.of(), 0);
        }
    }

    private ProfilerComponent profiler;
    private final Pauses jvm = new Pauses();

    @Before
    public void activate() {
        profiler = TestProfiler.activate(1_000_000);
        profiler.addSource(jvm);
    }

    @After
    public void deactivate() {
        profiler.deactivate();
    }

    @Test
    public void pausesAreCountedUnderTheTableNotAsOps() {
        Profile p = profiler.profile().start();
        TestOp.of("aten::mm").call(() -> {
            jvm.pause("GC: PS Scavenge (Allocation Failure)", 40_000_000);
            return null;
        });
        jvm.pause("GC: PS MarkSweep (System.gc())", 2_000_000);
        p.stop();

        List<EventAverage> rows = p.keyAverages().rows();
        assertTrue(rows.toString(), rows.stream().anyMatch(r -> r.key().equals("aten::mm")));
        assertFalse(rows.toString(), rows.stream().anyMatch(r -> r.key().startsWith("GC")));
        long selfCpu = rows.stream().mapToLong(EventAverage::selfCpuNanos).sum();
        assertTrue("the 42 ms of pauses are not self CPU time: " + selfCpu, selfCpu < 40_000_000);
        String table = p.keyAverages().table(SortKey.SELF_CPU_TIME_TOTAL, 100);
        assertTrue(table, table.contains("GC pauses: 2, total 42.000ms"));
        // the pauses stay in the events, on the JVM's row of the trace
        assertEquals(2, p.events().stream().filter(e -> e.kind() == EventKind.GC).count());
    }

    @Test
    public void noLineWithoutPauses() {
        Profile p = profiler.profile().start();
        TestOp.of("aten::add").call(() -> null);
        p.stop();
        assertFalse(p.keyAverages().table(SortKey.SELF_CPU_TIME_TOTAL, 100).contains("GC pauses"));
        assertEquals(0, p.events().stream().filter(ProfilerEvent::isDeviceWork).count());
    }
}
