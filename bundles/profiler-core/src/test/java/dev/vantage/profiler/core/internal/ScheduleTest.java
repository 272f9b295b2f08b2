package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.Test;

import dev.vantage.profiler.api.ProfilerAction;
import dev.vantage.profiler.api.Schedule;

/** Schedules against the actions torch 1.13 printed for the same arguments (reference run_meta.json). */
public class ScheduleTest {

    private static final ProfilerAction N = ProfilerAction.NONE;
    private static final ProfilerAction W = ProfilerAction.WARMUP;
    private static final ProfilerAction R = ProfilerAction.RECORD;
    private static final ProfilerAction S = ProfilerAction.RECORD_AND_SAVE;

    private static List<ProfilerAction> actions(Schedule s, int steps) {
        List<ProfilerAction> list = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            list.add(s.action(i));
        }
        return list;
    }

    @Test
    public void matchesTorchForSkipFirst1Wait1Warmup1Active2Repeat2() {
        // torch.profiler.schedule(skip_first=1, wait=1, warmup=1, active=2, repeat=2), steps 0..11
        assertEquals(List.of(N, N, W, R, S, N, W, R, S, N, N, N), actions(Schedule.of(1, 1, 2, 2, 1), 12));
    }

    @Test
    public void matchesTorchsRules() {
        // wait=1, warmup=1, active=2, repeat=1: the run; only steps 2 and 3 record
        assertEquals(List.of(N, W, R, S, N, N), actions(Schedule.of(1, 1, 2, 1, 0), 6));
        // repeat 0 cycles for ever
        assertEquals(List.of(N, S, N, S, N, S), actions(Schedule.of(1, 0, 1, 0, 0), 6));
        // active 1 with no wait or warm-up saves every step
        assertEquals(List.of(S, S, S), actions(Schedule.of(0, 0, 1, 0, 0), 3));
        // a cycle of warm-up only leads straight to recording
        assertEquals(List.of(W, W, R, S, W, W), actions(Schedule.of(0, 2, 2, 0, 0), 6));
    }

    @Test
    public void rejectsNumbersTorchAssertsAgainst() {
        assertEquals("schedule active must be 1 or more, not 0",
                assertThrows(IllegalArgumentException.class, () -> Schedule.of(0, 0, 0, 0, 0)).getMessage());
        assertEquals("schedule wait must be 0 or more, not -1",
                assertThrows(IllegalArgumentException.class, () -> Schedule.of(-1, 0, 1, 0, 0)).getMessage());
        assertEquals("schedule skipFirst must be 0 or more, not -3",
                assertThrows(IllegalArgumentException.class, () -> Schedule.of(0, 0, 1, 0, -3)).getMessage());
    }
}
