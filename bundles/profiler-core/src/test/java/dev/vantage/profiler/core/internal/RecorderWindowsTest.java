package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

import dev.vantage.trace.engine.store.HostRows;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * An op that is still running when its recorder's window ends and the next window's recorder records on the same
 * thread: the next recorder takes the thread's buffer slot, and the op's end must still go to the row it began
 * in, not to the new recorder's buffer.
 */
public class RecorderWindowsTest {

    @Test
    public void anOpThatOutlivesItsWindowEndsInItsOwnRow() {
        try (ChunkPool firstPool = new ChunkPool(ThreadBuffer.CHUNK_EVENTS, 4L * ThreadBuffer.CHUNK_EVENTS);
                ChunkPool secondPool = new ChunkPool(ThreadBuffer.CHUNK_EVENTS, 4L * ThreadBuffer.CHUNK_EVENTS)) {
            Recorder first = new Recorder(firstPool, false, false, null, new ActivitySession[0]);
            Recorder second = new Recorder(secondPool, false, false, null, new ActivitySession[0]);
            TestOp outer = TestOp.of("test::outlives_its_window");
            TestOp inner = TestOp.of("test::in_the_next_window");

            long outerHandle = first.onEnter(outer);
            long innerHandle = second.onEnter(inner);   // the thread's slot now holds the second recorder's buffer
            second.onExit(inner, innerHandle);
            first.onExit(outer, outerHandle);

            HostRows a = only(first.snapshot()).rows();
            HostRows b = only(second.snapshot()).rows();
            assertEquals(1, a.size());
            assertEquals(1, b.size());
            assertEquals(OpNames.intern("test::outlives_its_window"), a.name(0));
            assertEquals(OpNames.intern("test::in_the_next_window"), b.name(0));
            // each end in its own row: the outer op's covers the inner one's, and neither is missing (0)
            assertTrue("the outer op has no end", a.end(0) != 0);
            assertTrue("the inner op has no end", b.end(0) != 0);
            assertTrue(a.start(0) <= b.start(0));
            assertTrue(b.end(0) <= a.end(0));
            assertTrue(b.start(0) <= b.end(0));
        }
    }

    private static ThreadBuffer.Snapshot only(List<ThreadBuffer.Snapshot> snapshots) {
        assertEquals(1, snapshots.size());
        return snapshots.get(0);
    }
}
