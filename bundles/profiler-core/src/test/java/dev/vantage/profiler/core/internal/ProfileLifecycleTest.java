package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.ProfileState;
import dev.vantage.profiler.api.ProfilerAction;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.api.TraceReadyHandler;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.trace.EventKind;

/** Schedule transitions, step annotations and trace-ready handlers, as torch's transition table defines them. */
public class ProfileLifecycleTest {

    private static final ProfilerAction N = ProfilerAction.NONE;
    private static final ProfilerAction W = ProfilerAction.WARMUP;
    private static final ProfilerAction R = ProfilerAction.RECORD;
    private static final ProfilerAction S = ProfilerAction.RECORD_AND_SAVE;

    @Rule
    public final TestProfiler active = new TestProfiler(1_000_000);
    private final ProfilerComponent profiler = active.component();
    private final List<String> log = new ArrayList<>();
    private final List<ProfileResult> cycles = new ArrayList<>();

    /** Runs steps of one annotated op each ("op<step>"), logging each step's action and each delivered cycle. */
    private Profile run(Schedule schedule, int steps) {
        Profile[] holder = new Profile[1];
        Profile p = profiler.profile().schedule(schedule).onTraceReady(c -> {
            log.add("ready " + holder[0].stepNumber() + " " + c.steps());
            cycles.add(c);
        }).start();
        holder[0] = p;
        for (int i = 0; i < steps; i++) {
            log.add("step " + i + " " + p.currentAction());
            try (RecordFunction op = RecordFunction.scope("op" + i)) {
                // the step's work
            }
            p.step();
        }
        return p;
    }

    private static List<String> names(ProfileResult r) {
        List<String> names = new ArrayList<>();
        for (ProfilerEvent e : r.events()) {
            names.add(e.name());
        }
        return names;
    }

    @Test
    public void deliversCyclesDuringTheStepCallsTorchDoes() {
        Profile p = run(Schedule.of(1, 1, 2, 2, 1), 12);
        p.stop();
        // torch 1.13 run_meta.json: on_trace_ready fires while moving to steps 5 and 9, each cycle with 2 steps
        assertEquals(List.of("step 0 NONE", "step 1 NONE", "step 2 WARMUP", "step 3 RECORD",
                "step 4 RECORD_AND_SAVE", "ready 5 [3, 4]", "step 5 NONE", "step 6 WARMUP", "step 7 RECORD",
                "step 8 RECORD_AND_SAVE", "ready 9 [7, 8]", "step 9 NONE", "step 10 NONE", "step 11 NONE"), log);
        assertEquals(List.of("ProfilerStep#3", "ProfilerStep#4", "op3", "op4"), names(cycles.get(0)));
        assertEquals(List.of("ProfilerStep#7", "ProfilerStep#8", "op7", "op8"), names(cycles.get(1)));
        assertEquals(2, cycles.get(1).cycle());
        // the stopped profile reads its last cycle
        assertEquals(names(cycles.get(1)), names(p));
    }

    @Test
    public void stepAnnotationsAreParentsOfTheStepsTopLevelEvents() {
        Profile p = run(Schedule.of(0, 0, 2, 1, 0), 2);
        p.stop();
        List<ProfilerEvent> events = cycles.get(0).events();
        ProfilerEvent step0 = events.get(0);
        ProfilerEvent op0 = events.get(2);
        assertEquals("ProfilerStep#0", step0.name());
        assertEquals(EventKind.USER_ANNOTATION, step0.kind());
        assertEquals("op0", op0.name());
        assertEquals(step0.id(), op0.parentId());
        assertEquals(List.of(op0.id()), step0.childIds());
        assertEquals(0, op0.step());
        assertEquals(1, events.get(3).step());
        assertTrue(step0.startNanos() <= op0.startNanos() && op0.endNanos() <= step0.endNanos());
    }

    @Test
    public void withoutAScheduleEveryStepIsRecordedAndOneCycleDeliveredOnStop() {
        Profile p = profiler.profile().onTraceReady(cycles::add).start();
        for (int i = 0; i < 3; i++) {
            try (RecordFunction op = RecordFunction.scope("op" + i)) {
                // work
            }
            p.step();
        }
        assertEquals(List.of(), cycles);
        p.stop();
        assertEquals(1, cycles.size());
        assertEquals(List.of("op0", "op1", "op2"), names(cycles.get(0)));
        assertEquals(List.of(), cycles.get(0).steps());
        assertEquals(3, p.stepNumber());
    }

    @Test
    public void aPartialCycleIsDeliveredWhenStoppedWhileRecording() {
        Profile p = run(step -> step < 2 ? R : S, 2);
        assertEquals(List.of(), cycles);
        p.stop();
        assertEquals(1, cycles.size());
        // as torch's stop(), the annotation of the step in progress (2, with no work yet) is closed and kept
        assertEquals(List.of("ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2", "op0", "op1"),
                names(cycles.get(0)));
    }

    @Test
    public void stoppingDuringWarmupOrWaitDeliversNothing() {
        Profile warm = run(step -> W, 2);
        warm.stop();
        assertEquals(List.of(), cycles);
        assertThrows(IllegalStateException.class, warm::events);
        Profile idle = run(step -> N, 2);
        idle.stop();
        assertEquals(List.of(), cycles);
        assertEquals(ProfileState.STOPPED, idle.state());
    }

    @Test
    public void incorrectSchedulesAreWarnedAboutAndStopWithoutDelivering() {
        List<ProfilerAction> plan = List.of(R, N, W, N, R, W, S, N);
        Profile p = run(step -> plan.get((int) Math.min(step, plan.size() - 1)), plan.size() - 1);
        p.stop();
        // R->N and R->W stop without a callback, W->N starts and stops at once; only the W->S cycle is delivered
        assertEquals(1, cycles.size());
        assertEquals(List.of(6L), cycles.get(0).steps());
        String warnings = cycles.get(0).trace().metadata().get("vantage.warnings");
        assertEquals("Incorrect schedule: RECORD followed by NONE; Incorrect schedule: WARMUP followed by NONE;"
                + " Incorrect schedule: RECORD followed by WARMUP", warnings);
    }

    @Test
    public void everySaveStepDeliversACycleOfItsOwn() {
        Profile p = run(step -> S, 3);
        p.stop();
        assertEquals(4, cycles.size());
        assertEquals(List.of(0L), cycles.get(0).steps());
        assertEquals(List.of(2L), cycles.get(2).steps());
        assertEquals(List.of(3L), cycles.get(3).steps());
        assertEquals(4, cycles.get(3).cycle());
    }

    @Test
    public void aFailingHandlerIsIsolatedAndTheNextHandlerStillRuns() {
        List<Integer> seen = new ArrayList<>();
        Profile p = profiler.profile().schedule(step -> S)
                .onTraceReady(c -> {
                    throw new java.io.IOException("disk full");
                })
                .onTraceReady(c -> seen.add(c.cycle()))
                .start();
        p.step();
        p.step();
        p.stop();
        assertEquals(List.of(1, 2, 3), seen);
        String warnings = p.trace().metadata().get("vantage.warnings");
        assertTrue(warnings, warnings.contains("failed on cycle 1: java.io.IOException: disk full"));
    }

    @Test
    public void warnsWhenTheScheduleHasNoWarmup() {
        Profile p = run(Schedule.of(0, 0, 1, 1, 0), 1);
        p.stop();
        assertEquals("Profiler won't be using warmup, this can skew profiler results",
                cycles.get(0).trace().metadata().get("vantage.warnings"));
    }

    @Test
    public void recordsOnlyInsideTheWindowAndUnpublishesOutside() {
        Profile p = profiler.profile().schedule(Schedule.of(1, 0, 1, 1, 0)).onTraceReady(cycles::add).start();
        assertNull("waiting: nothing published", Dispatch.hooks());
        p.step();
        assertEquals(1, Dispatch.hooks().length);
        p.step();
        assertNull(Dispatch.hooks());
        p.stop();
        assertEquals(1, cycles.size());
    }

    @Test
    public void theExportHandlerWritesEveryCycleWithTheNamedFormat() throws Exception {
        List<String> written = new ArrayList<>();
        profiler.addExporter(new dev.vantage.profiler.spi.TraceExporter() {
            @Override
            public String format() {
                return "tensorboard";
            }

            @Override
            public java.nio.file.Path defaultTarget(java.nio.file.Path directory, String baseName) {
                return directory.resolve(baseName);
            }

            @Override
            public void export(dev.vantage.profiler.trace.Trace trace, java.nio.file.Path target) {
                written.add(target + " " + trace.metadata().get("vantage.cycle"));
            }
        }, TestProfiler.reference());
        Profile p = profiler.profile().schedule(step -> S)
                .onTraceReady(TraceReadyHandler.tensorboard(java.nio.file.Path.of("/logs/run1"))).start();
        p.step();
        p.stop();
        assertEquals(List.of("/logs/run1 1", "/logs/run1 2"), written);
    }

    @Test
    public void addedMetadataAppearsInLaterTraces() {
        Profile p = profiler.profile().schedule(step -> S).onTraceReady(cycles::add).start();
        p.addMetadata("experiment", "lr=0.1");
        p.step();
        p.stop();
        assertEquals("lr=0.1", cycles.get(0).trace().metadata().get("experiment"));
        assertThrows(IllegalArgumentException.class, () -> p.addMetadata("", "x"));
    }
}
