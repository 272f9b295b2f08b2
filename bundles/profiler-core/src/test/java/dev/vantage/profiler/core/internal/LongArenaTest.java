package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;

import org.junit.Test;

/** The details arena across block boundaries and after truncation, and row chunks that come cleared. */
public class LongArenaTest {

    @Test
    public void valuesReadBackAcrossBlockBoundaries() {
        LongArena arena = new LongArena(OffHeap.DETAILS::take);
        long n = 2L * LongArena.BLOCK_LONGS + 17;
        for (long i = 0; i < n; i++) {
            assertTrue(arena.add(i * 31 + 7));
        }
        assertEquals(n, arena.size());
        LongArena.View view = arena.view(arena.size());
        for (long i = 0; i < n; i++) {
            assertEquals(i * 31 + 7, view.get(i));
        }
    }

    @Test
    public void appendsAfterATruncationOverwriteWhatWasUndone() {
        LongArena arena = new LongArena(OffHeap.DETAILS::take);
        int boundary = LongArena.BLOCK_LONGS;
        for (int i = 0; i < boundary + 5; i++) {
            arena.add(i);
        }
        // back into the first block, then across the boundary again
        arena.truncate(boundary - 3);
        for (int i = 0; i < 10; i++) {
            arena.add(-i - 1);
        }
        // back to the boundary exactly: the next value starts the second block
        arena.truncate(boundary);
        arena.add(99);
        LongArena.View view = arena.view(arena.size());
        assertEquals(boundary + 1, arena.size());
        assertEquals(boundary - 4, view.get(boundary - 4));
        assertEquals(-1, view.get(boundary - 3));
        assertEquals(-3, view.get(boundary - 1));
        assertEquals(99, view.get(boundary));
    }

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
            LongArena arena = new LongArena(pool::takeDetails);
            assertEquals(0, pool.inlineAllocations());
            // nothing asked for details before, so no block was ready: the first one is taken inline, and counted
            assertTrue(arena.add(1));
            assertEquals(1, pool.inlineAllocations());
            for (int i = 1; i < LongArena.BLOCK_LONGS + 1; i++) {
                assertTrue(arena.add(i + 1));
            }
            assertEquals(LongArena.BLOCK_LONGS + 1, arena.size());
            assertEquals(LongArena.BLOCK_LONGS + 1, arena.view(arena.size()).get(LongArena.BLOCK_LONGS));
        }
    }
}
