package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;

import org.junit.Test;

import dev.vantage.trace.engine.store.Column;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/** Recycled row chunks come cleared, and a window's details blocks come from its pool. */
public class OffHeapBlocksTest {

    @Test
    public void aRecycledRowChunkComesCleared() {
        ByteBuffer dirty = OffHeap.ROWS.takeZeroed();
        assertNotNull(dirty);
        for (int at = 0; at < dirty.capacity(); at += Long.BYTES) {
            dirty.putLong(at, -1L);
        }
        OffHeap.ROWS.give(dirty);
        // the pool is shared: take until the dirty block comes back, every block taken must be clear
        boolean sawDirtyBlock = false;
        for (int i = 0; i < 300 && !sawDirtyBlock; i++) {
            ByteBuffer b = OffHeap.ROWS.takeZeroed();
            for (int at = 0; at < b.capacity(); at += Long.BYTES) {
                assertEquals("byte " + at + " of a chunk handed out", 0L, b.getLong(at));
            }
            sawDirtyBlock = b == dirty;
        }
        assertTrue("the recycled block was handed out again", sawDirtyBlock);
    }

    @Test
    public void detailBlocksComeFromTheWindowsPoolAndAnUnreadyOneIsCounted() {
        try (ChunkPool pool = new ChunkPool(ThreadBuffer.CHUNK_EVENTS, 4L * ThreadBuffer.CHUNK_EVENTS)) {
            Column arena = Column.longsInWholeBlocks(bytes -> pool.takeDetails());
            assertEquals(0, pool.inlineAllocations());
            // nothing asked for details before, so no block was ready: the first one is taken inline, and counted
            assertTrue(arena.add(1));
            assertEquals(1, pool.inlineAllocations());
            for (int i = 1; i < Column.BLOCK_VALUES + 1; i++) {
                assertTrue(arena.add(i + 1));
            }
            assertEquals(Column.BLOCK_VALUES + 1, arena.size());
            assertEquals(Column.BLOCK_VALUES + 1, arena.frozen(arena.size()).get(Column.BLOCK_VALUES));
        }
    }
}
