package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Set;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileOptions;
import dev.vantage.profiler.api.ProfileState;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

public class ProfilerComponentTest {

    @Rule
    public final TestProfiler active = new TestProfiler(1_000_000);
    private final ProfilerComponent profiler = active.component();

    @Test
    public void publishesNoHookWhileIdleAndTheRecorderOnlyWhileRecording() {
        assertNull("idle: the fast path must be empty", Dispatch.hooks());
        Profile p = profiler.profile().start();
        assertNotNull(Dispatch.hooks());
        p.stop();
        assertNull(Dispatch.hooks());
        assertEquals(ProfileState.STOPPED, p.state());
    }

    @Test
    public void recordsNestedScopesWithParentsChildrenAndSelfTimes() {
        Profile p = profiler.profile().start();
        try (RecordFunction outer = RecordFunction.scope("outer")) {
            try (RecordFunction a = RecordFunction.scope("a")) {
                spin();
            }
            try (RecordFunction b = RecordFunction.scope("b")) {
                try (RecordFunction c = RecordFunction.scope("c")) {
                    spin();
                }
            }
        }
        p.stop();
        List<ProfilerEvent> events = p.events();
        assertEquals(4, events.size());
        ProfilerEvent outer = events.get(0);
        ProfilerEvent a = events.get(1);
        ProfilerEvent b = events.get(2);
        ProfilerEvent c = events.get(3);
        assertEquals(List.of("outer", "a", "b", "c"), List.of(outer.name(), a.name(), b.name(), c.name()));
        assertEquals(-1, outer.parentId());
        assertEquals(outer.id(), a.parentId());
        assertEquals(outer.id(), b.parentId());
        assertEquals(b.id(), c.parentId());
        assertEquals(List.of(a.id(), b.id()), outer.childIds());
        assertEquals(EventKind.USER_ANNOTATION, c.kind());
        assertTrue(outer.startNanos() <= a.startNanos() && a.endNanos() <= b.startNanos()
                && c.endNanos() <= b.endNanos() && b.endNanos() <= outer.endNanos());

        Map<String, Long> self = new java.util.HashMap<>();
        p.keyAverages().rows().forEach(r -> self.put(r.key(), r.selfCpuNanos()));
        assertEquals(outer.durationNanos() - a.durationNanos() - b.durationNanos(), (long) self.get("outer"));
        assertEquals(b.durationNanos() - c.durationNanos(), (long) self.get("b"));
        assertEquals(c.durationNanos(), (long) self.get("c"));
    }

    @Test
    public void aScopeLeftByAnExceptionIsRecordedWithItsRealEnd() {
        Profile p = profiler.profile().start();
        long before = System.nanoTime();
        assertThrows(IllegalStateException.class, () -> {
            try (RecordFunction scope = RecordFunction.scope("failing")) {
                throw new IllegalStateException("boom");
            }
        });
        long after = System.nanoTime();
        spin();
        p.stop();
        ProfilerEvent e = p.events().get(0);
        assertEquals("failing", e.name());
        assertTrue(e.startNanos() >= before && e.endNanos() <= after);
    }

    @Test
    public void dropsAndCountsEventsBeyondTheLimitExactly() {
        // a profiler of its own whose cap is one chunk (one profiler may be active at a time)
        active.deactivate();
        ProfilerComponent small = TestProfiler.activate(ThreadBuffer.CHUNK_EVENTS);
        try {
            dropsAndCountsEventsBeyondTheLimitOf(small);
        } finally {
            small.deactivate();
        }
    }

    private static void dropsAndCountsEventsBeyondTheLimitOf(ProfilerComponent profiler) {
        Profile p = profiler.profile().start();
        int total = ThreadBuffer.CHUNK_EVENTS + 1_000;
        for (int i = 0; i < total; i++) {
            try (RecordFunction s = RecordFunction.scope("op")) {
                // nothing
            }
        }
        p.stop();
        Trace trace = p.trace();
        assertEquals(ThreadBuffer.CHUNK_EVENTS, trace.eventCount());
        assertEquals(1_000, trace.droppedEvents());
        assertEquals(1_000, trace.threads().get(0).droppedEvents());
        assertEquals("1000", trace.metadata().get("vantage.dropped_events"));
        assertEquals("the per-thread count the drop message promises",
                "1000 (" + Thread.currentThread().getName() + ")",
                trace.metadata().get("vantage.dropped_events.thread." + Thread.currentThread().getId()));
        assertEquals(ThreadBuffer.CHUNK_EVENTS, p.events().size());
    }

    @Test
    public void aProfilesOwnCapRoundsUpToWholeChunksAndIsNamedInTheMetadata() {
        // the profiler's cap is 1 M here; the profile asks for 5,000, which the budget takes as one whole chunk
        Profile p = profiler.profile().maxEvents(5_000).start();
        int total = ThreadBuffer.CHUNK_EVENTS + 300;
        for (int i = 0; i < total; i++) {
            try (RecordFunction s = RecordFunction.scope("op")) {
                // nothing
            }
        }
        p.stop();
        assertEquals(ThreadBuffer.CHUNK_EVENTS, p.trace().eventCount());
        assertEquals(300, p.trace().droppedEvents());
        assertEquals("5000", p.trace().metadata().get("vantage.max_events"));
        assertThrows(IllegalArgumentException.class, () -> profiler.profile().maxEvents(0));
    }

    @Test
    public void eightThreadsRecordEveryEventOnceInOrder() throws Exception {
        int threads = 8;
        int perThread = 100_000;
        Profile p = profiler.profile().start();
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String name = "t" + t + "-";
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < perThread; i++) {
                    // names cycle so that order within a thread can be checked
                    try (RecordFunction s = RecordFunction.scope(name + (i % 10))) {
                        // nothing
                    }
                }
            });
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        p.stop();
        Trace trace = p.trace();
        assertEquals((long) threads * perThread, trace.eventCount());
        assertEquals(0, trace.droppedEvents());
        assertEquals(threads, trace.threads().size());
        Map<Long, Integer> seen = new java.util.HashMap<>();
        Map<Long, Long> lastStart = new java.util.HashMap<>();
        EventCursor c = trace.events();
        java.util.Set<Long> ids = new java.util.HashSet<>();
        while (c.next()) {
            int i = seen.merge(c.threadId(), 1, Integer::sum) - 1;
            assertTrue(c.name(), c.name().endsWith("-" + (i % 10)));
            Long previous = lastStart.put(c.threadId(), c.startEpochNanos());
            assertTrue(previous == null || previous <= c.startEpochNanos());
            assertTrue("duplicate id " + c.eventId(), ids.add(c.eventId()));
        }
        assertEquals(threads, seen.size());
        seen.values().forEach(n -> assertEquals(perThread, (int) n));
    }

    @Test
    public void aThrowingHookIsIsolatedCountedAndTheScopeStillRecorded() {
        DispatchHook bad = new DispatchHook() {
            @Override
            public long onEnter(OpCall call) {
                throw new IllegalStateException("bad hook");
            }

            @Override
            public void onExit(OpCall call, long handle) {
                throw new IllegalStateException("bad hook");
            }
        };
        profiler.addHook(bad);
        Profile p = profiler.profile().start();
        try (RecordFunction s = RecordFunction.scope("work")) {
            spin();
        }
        profiler.removeHook(bad);
        p.stop();
        assertEquals(1, p.events().size());
        assertTrue(p.trace().metadata().containsKey("vantage.hook_left." + bad.getClass().getName()));
        assertEquals("work", p.events().get(0).name());
        String key = "vantage.hook_failures." + bad.getClass().getName();
        assertEquals("2", p.trace().metadata().get(key));
    }

    @Test
    public void anExporterThatThrowsIsAnIoErrorAndTheOthersStillWrite() throws Exception {
        java.util.List<String> written = new ArrayList<>();
        profiler.addExporter(exporter("broken", (trace, target) -> {
            throw new IllegalStateException("bug in the exporter");
        }), TestProfiler.reference());
        profiler.addExporter(exporter("good", (trace, target) -> written.add(target.toString())),
                TestProfiler.reference());
        Profile p = profiler.profile().start();
        p.stop();
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> p.export("broken", java.nio.file.Path.of("/tmp/x")));
        assertTrue(e.getMessage(), e.getMessage().contains("exporter 'broken' failed")
                && e.getMessage().contains("bug in the exporter"));
        p.export("good", java.nio.file.Path.of("/tmp/y"));
        assertEquals(List.of("/tmp/y"), written);
        assertEquals(java.util.Set.of("broken", "good"), profiler.exporterFormats());
    }

    /** An exporter of a format that runs {@code body}. */
    private static dev.vantage.profiler.spi.TraceExporter exporter(String format, ExportBody body) {
        return new dev.vantage.profiler.spi.TraceExporter() {
            @Override
            public String format() {
                return format;
            }

            @Override
            public java.nio.file.Path defaultTarget(java.nio.file.Path directory, String baseName) {
                return directory.resolve(baseName);
            }

            @Override
            public void export(dev.vantage.profiler.trace.Trace trace, java.nio.file.Path target)
                    throws java.io.IOException {
                body.run(trace, target);
            }
        };
    }

    /** The body of a test exporter. */
    private interface ExportBody {
        void run(dev.vantage.profiler.trace.Trace trace, java.nio.file.Path target) throws java.io.IOException;
    }

    @Test
    public void rejectsASecondProfileAndAnUnavailableActivity() {
        Profile p = profiler.profile().start();
        IllegalStateException busy = assertThrows(IllegalStateException.class, () -> profiler.profile().start());
        assertTrue(busy.getMessage().contains("already running"));
        p.stop();
        IllegalArgumentException npu = assertThrows(IllegalArgumentException.class,
                () -> profiler.start(ProfileOptions.of(Set.of(Activity.CPU, Activity.NPU))));
        assertEquals("activity NPU is not available; available: [CPU]", npu.getMessage());
    }

    @Test
    public void readingARecordingProfileIsAnError() {
        Profile p = profiler.profile().start();
        IllegalStateException e = assertThrows(IllegalStateException.class, p::events);
        assertTrue(e.getMessage().contains("RECORDING"));
        p.stop();
        assertThrows(IllegalStateException.class, p::step);
    }

    @Test
    public void anInvalidConfiguredLimitFallsBackToTheDefault() {
        ProfilerComponent.Config broken = new ProfilerComponent.Config() {
            @Override
            public long maxEvents() {
                throw new NumberFormatException("For input string: \"lots\"");
            }

            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return ProfilerComponent.Config.class;
            }
        };
        assertEquals(ProfilerComponent.DEFAULT_MAX_EVENTS,
                ProfilerComponent.validMaxEvents(broken, Map.of("maxEvents", "lots")));
        assertEquals(ProfilerComponent.DEFAULT_MAX_EVENTS,
                ProfilerComponent.validMaxEvents(TestProfiler.config(-5), Map.of()));
        assertEquals(77, ProfilerComponent.validMaxEvents(TestProfiler.config(77), Map.of()));
    }

    private static void spin() {
        long end = System.nanoTime() + 20_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }
}
