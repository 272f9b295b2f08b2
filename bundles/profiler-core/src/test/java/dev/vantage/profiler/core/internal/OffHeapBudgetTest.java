package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * Off-heap memory is bounded and accounted: when the profiler's budget is spent, further events are dropped and
 * counted at once, rather than the recording thread stalling in the JDK's direct-memory reservation.
 */
public class OffHeapBudgetTest {

    private ProfilerComponent profiler;
    private long budget;

    @Before
    public void activate() {
        profiler = TestProfiler.activate(1_000L * ThreadBuffer.CHUNK_EVENTS);
        // no room for a new block: only recycled ones can be used, and earlier tests' blocks may still come back
        // to the pool (at most MAX_KEPT of them), so the test records more than the pool can ever hold
        OffHeap.ROWS.drain();
        budget = OffHeap.budget(0);
    }

    @After
    public void deactivate() {
        OffHeap.budget(budget);
        profiler.deactivate();
    }

    @Test(timeout = 60_000)
    public void eventsBeyondTheBudgetAreDroppedAndCounted() {
        Profile p = profiler.profile().start();
        int total = (OffHeap.MAX_KEPT_ROW_BLOCKS + 20) * ThreadBuffer.CHUNK_EVENTS;
        for (int i = 0; i < total; i++) {
            try (RecordFunction s = RecordFunction.scope("op")) {
                // nothing
            }
        }
        p.stop();
        long kept = p.trace().eventCount();
        long dropped = p.trace().droppedEvents();
        assertTrue("at most the recycled blocks were used: " + kept,
                kept <= (long) OffHeap.MAX_KEPT_ROW_BLOCKS * ThreadBuffer.CHUNK_EVENTS);
        assertTrue("dropped " + dropped, dropped >= 20L * ThreadBuffer.CHUNK_EVENTS);
        assertEquals("every event kept or counted", total, kept + dropped);
    }

    @Test
    public void theDefaultBudgetIsHalfTheJvmsDirectMemoryLimit() {
        assertEquals(512L << 20, OffHeap.parseSize("512m"));
        assertEquals(2L << 30, OffHeap.parseSize("2G"));
        assertEquals(1_048_576, OffHeap.parseSize("1048576"));
        assertEquals(OffHeap.maxDirectMemory() / 2, budget);
    }
}
