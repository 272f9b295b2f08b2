package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.Set;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;

/** Device activity sources: correlation with the launching op, device time, and bundles that misbehave or leave. */
public class DeviceSessionTest {

    private ProfilerComponent profiler;
    private final FakeNpu npu = new FakeNpu();

    @Before
    public void activate() {
        profiler = TestProfiler.activate(1_000_000);
        profiler.addSource(npu);
    }

    @After
    public void deactivate() {
        profiler.deactivate();
    }

    private Profile recordTwoOps() {
        Profile p = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        try (RecordFunction forward = RecordFunction.scope("forward")) {
            TestOp.of("aten::mm").call(() -> npu.launch("mm_kernel", 2_000));
            TestOp.of("aten::add").call(() -> {
                npu.launch("add_kernel", 300);
                npu.launch("add_kernel", 500);
            });
        }
        npu.launch("orphan_kernel", 10);
        return p;
    }

    private static Map<String, EventAverage> rows(Profile p) {
        Map<String, EventAverage> rows = new java.util.HashMap<>();
        p.keyAverages().rows().forEach(r -> rows.put(r.key(), r));
        return rows;
    }

    @Test
    public void kernelsLinkToTheOpsThatLaunchedThem() {
        assertEquals(Set.of(Activity.CPU, Activity.NPU), profiler.availableActivities());
        Profile p = recordTwoOps();
        p.stop();
        assertTrue(npu.session.started && npu.session.stopped);
        List<ProfilerEvent> events = p.events();
        ProfilerEvent mm = events.stream().filter(e -> e.name().equals("aten::mm")).findFirst().orElseThrow();
        ProfilerEvent kernel = events.stream().filter(e -> e.name().equals("mm_kernel")).findFirst().orElseThrow();
        assertEquals(EventKind.KERNEL, kernel.kind());
        assertEquals(mm.id(), kernel.correlationId());
        assertEquals("npu", kernel.deviceType());
        assertEquals(0, kernel.deviceIndex());
        assertEquals(3, kernel.streamId());
        assertTrue(kernel.startNanos() > mm.startNanos());
        ProfilerEvent orphan = events.stream().filter(e -> e.name().equals("orphan_kernel")).findFirst()
                .orElseThrow();
        assertEquals(-1, orphan.correlationId());
    }

    @Test
    public void deviceTimeIsAttributedToOpsAndTheirParents() {
        Profile p = recordTwoOps();
        p.stop();
        Map<String, EventAverage> rows = rows(p);
        assertEquals(2_000, rows.get("aten::mm").selfDeviceNanos());
        assertEquals(800, rows.get("aten::add").selfDeviceNanos());
        assertEquals(0, rows.get("forward").selfDeviceNanos());
        assertEquals(2_800, rows.get("forward").deviceTotalNanos());
        assertEquals(2, rows.get("add_kernel").count());
        assertEquals(800, rows.get("add_kernel").deviceTotalNanos());
        assertEquals(0, rows.get("add_kernel").cpuTotalNanos());
        assertEquals("npu", p.keyAverages().deviceType());
        String table = p.keyAverages().table(SortKey.SELF_DEVICE_TIME_TOTAL, -1);
        assertTrue(table, table.contains("Self NPU    Self NPU %     NPU total  NPU time avg"));
        // as torch, the total counts the kernels (2.000 + 0.300 + 0.500 + 0.010 us), not the ops launching them
        assertTrue(table, table.contains("Self NPU time total: 2.810us"));
        assertTrue(table, table.lines().anyMatch(l -> l.matches("\\s+aten::mm\\s.*\\s71\\.17%\\s.*")));
        // sorted by self device time; equal values are ordered by name
        List<String> body = table.lines().skip(3).limit(2).toList();
        assertTrue(body.toString(), body.get(0).contains("aten::mm") && body.get(1).contains("mm_kernel"));
        assertTrue(table, table.contains("Dropped device records: 2 (reported by the device sessions"));
    }

    @Test
    public void aLaunchIsNotSelfTimeOfTheOpThatMadeItAndEmulatedDevicesAreNamedUnderTheTable() {
        Profile p = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        TestOp.of("aten::mm").call(() -> {
            long start = System.nanoTime();
            npu.launch("mm_kernel", 1_000);
            npu.session.runtime("aclrtLaunchKernel", start, System.nanoTime());
        });
        p.stop();
        ProfilerEvent mm = p.events().stream().filter(e -> e.name().equals("aten::mm")).findFirst().orElseThrow();
        ProfilerEvent launch = p.events().stream().filter(e -> e.kind() == EventKind.RUNTIME).findFirst()
                .orElseThrow();
        assertEquals(mm.id(), launch.correlationId());
        assertTrue(launch.durationNanos() > 0);
        Map<String, EventAverage> rows = rows(p);
        assertEquals(mm.durationNanos() - launch.durationNanos(), rows.get("aten::mm").selfCpuNanos());
        assertEquals(launch.durationNanos(), rows.get("aclrtLaunchKernel").selfCpuNanos());
        String table = p.keyAverages().table(SortKey.SELF_CPU_TIME_TOTAL, -1);
        assertTrue(table, table.contains("npu:0 is emulated: its times come from an emulated driver, not hardware"));
    }

    @Test
    public void theTraceCarriesDevicesKernelsAndTheSessionsCounts() {
        Profile p = recordTwoOps();
        p.stop();
        Trace trace = p.trace();
        assertEquals(1, trace.devices().size());
        assertTrue(trace.devices().get(0).emulated());
        assertEquals("true", trace.metadata().get("vantage.device.npu.emulated"));
        assertEquals(2, trace.droppedEvents());
        long mmId = -1;
        int kernels = 0;
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.name().equals("aten::mm")) {
                mmId = c.eventId();
            }
            if (c.kind() == EventKind.KERNEL) {
                kernels++;
                assertEquals(0, c.deviceIndex());
                assertEquals(3, c.streamId());
                // the fake's plain launches record no runtime call, so no flow has its start in the trace
                assertEquals(-1, c.flowId());
                if (c.name().equals("mm_kernel")) {
                    assertEquals(mmId, c.correlationId());
                }
            }
        }
        assertEquals(4, kernels);
    }

    @Test
    public void aFlowIdReachesTheTraceOnlyWhenBothItsEndsAreThere() {
        Profile p = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        TestOp.of("aten::mm").call(() -> {
            npu.session.launchWithRuntimeCall("mm_kernel", 1_000);
            long start = System.nanoTime();
            npu.session.runtime("aclrtSynchronizeStream", start, start + 10);   // launches nothing
            npu.launch("lone_kernel", 10);                                     // its launch was not recorded
        });
        p.stop();
        Map<String, Long> flows = new java.util.HashMap<>();
        EventCursor c = p.trace().events();
        while (c.next()) {
            if (c.kind() == EventKind.RUNTIME || c.kind().isDeviceWork()) {
                flows.put(c.name(), c.flowId());
            }
        }
        assertTrue(flows.toString(), flows.get("mm_kernel") >= 3000);
        assertEquals(flows.get("mm_kernel"), flows.get("aclrtLaunchKernel"));
        assertEquals(-1L, (long) flows.get("aclrtSynchronizeStream"));
        assertEquals(-1L, (long) flows.get("lone_kernel"));
    }

    @Test
    public void theCursorCarriesParentsSelfTimesAndDeviceTimes() {
        Profile p = recordTwoOps();
        p.stop();
        Map<String, long[]> seen = new java.util.HashMap<>();
        EventCursor c = p.trace().events();
        while (c.next()) {
            seen.putIfAbsent(c.name(), new long[] {c.eventId(), c.parentId(), c.selfDurationNanos(),
                c.durationNanos(), c.deviceSelfNanos(), c.deviceTotalNanos()});
        }
        long[] forward = seen.get("forward");
        long[] mm = seen.get("aten::mm");
        long[] add = seen.get("aten::add");
        assertEquals(-1, forward[1]);
        assertEquals(forward[0], mm[1]);
        assertEquals(forward[3] - mm[3] - add[3], forward[2]);
        assertEquals(2_000, mm[4]);
        assertEquals(0, forward[4]);
        assertEquals(2_800, forward[5]);
        long[] kernel = seen.get("mm_kernel");
        assertEquals(-1, kernel[1]);
        assertEquals(0, kernel[2]);
        assertEquals(2_000, kernel[4]);
    }

    @Test
    public void aDeviceBundleLeavingWhileRecordingKeepsWhatItDelivered() {
        Profile p = recordTwoOps();
        profiler.removeSource(npu);
        TestOp.of("aten::mul").call(() -> {
        });
        p.stop();
        assertEquals(4, p.events().stream().filter(e -> e.kind() == EventKind.KERNEL).count());
        assertTrue(p.trace().metadata().get("vantage.device.npu.left").contains("kept"));
        assertEquals(Set.of(Activity.CPU), profiler.availableActivities());
    }

    @Test
    public void aFailingOrDecliningSourceLeavesTheHostProfileIntact() {
        npu.mode = "throws";
        Profile p = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        TestOp.of("aten::mm").call(() -> {
        });
        p.stop();
        assertEquals(1, p.events().size());
        assertTrue(p.trace().metadata().get("vantage.device.npu.failure").contains("driver not loaded"));

        npu.mode = "declines";
        Profile q = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        q.stop();
        assertEquals("declined: no device activity recorded", q.trace().metadata().get("vantage.device.npu.session"));
        assertNull(q.trace().metadata().get("vantage.device.npu.failure"));
    }

    @Test
    public void aSourceIsNotAskedWhenItsActivityIsNotRecorded() {
        Profile p = profiler.profile().start();
        p.stop();
        assertEquals(0, npu.configured);
    }
}
