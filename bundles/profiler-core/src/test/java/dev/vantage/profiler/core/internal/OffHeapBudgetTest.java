package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.RecordFunction;

/**
 * Off-heap memory is bounded and accounted: when the profiler's budget is spent, further events are dropped and
 * counted at once, rather than the recording thread stalling in the JDK's direct-memory reservation.
 */
public class OffHeapBudgetTest {

    private ProfilerComponent profiler;
    private long budget;

    @Before
    public void activate() {
        profiler = TestProfiler.activate(100L * ThreadBuffer.CHUNK_EVENTS);
        // no recycled block to fall back on, and no room for a new one: the budget is spent
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
        int total = 20 * ThreadBuffer.CHUNK_EVENTS;
        for (int i = 0; i < total; i++) {
            try (RecordFunction s = RecordFunction.scope("op")) {
                // nothing
            }
        }
        p.stop();
        assertEquals("nothing kept without memory", 0, p.trace().eventCount());
        assertEquals("every event counted as dropped", total, p.trace().droppedEvents());
    }

    @Test
    public void theDefaultBudgetIsHalfTheJvmsDirectMemoryLimit() {
        assertEquals(512L << 20, OffHeap.parseSize("512m"));
        assertEquals(2L << 30, OffHeap.parseSize("2G"));
        assertEquals(1_048_576, OffHeap.parseSize("1048576"));
        assertEquals(OffHeap.maxDirectMemory() / 2, budget);
    }
}
