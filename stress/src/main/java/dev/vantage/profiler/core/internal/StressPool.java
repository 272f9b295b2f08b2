package dev.vantage.profiler.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * The chunk pool every state of the core's stress tests takes from, and the early return of a state's blocks.
 *
 * <p>One pool for all states, since a pool starts a refill thread, which one state per race cannot afford. A
 * stress test makes states far faster than the collector frees them: a buffer's blocks come back to
 * {@link OffHeap} only once the collector found the buffer unreachable and the cleaner ran, and the core refuses a
 * chunk (the event is dropped) rather than wait for that. So each test's arbiter, which runs once both actors are
 * done and nothing touches the state any more, hands the state's blocks back itself ({@link #release}): what the
 * buffer's cleaner does, only sooner. It takes them out of the buffer's own arrays as it does, so that the cleaner,
 * when it runs, finds nothing left to give back twice.
 */
final class StressPool {

    static final ChunkPool POOL = new ChunkPool(ThreadBuffer.CHUNK_EVENTS, Long.MAX_VALUE);
    private static final VarHandle CHUNKS;

    static {
        try {
            CHUNKS = MethodHandles.privateLookupIn(ThreadBuffer.class, MethodHandles.lookup())
                    .findVarHandle(ThreadBuffer.class, "chunks", ByteBuffer[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private StressPool() {
    }

    /**
     * Gives the blocks of every buffer of a state's recorder back, once both actors are done (a test's arbiter), and
     * returns whether any event was dropped: a pool out of memory would drop events and hide the race, so that run
     * proves nothing and the test makes it fail.
     */
    static boolean releaseAll(Recorder recorder) {
        boolean dropped = false;
        for (ThreadBuffer.Snapshot s : recorder.snapshot()) {
            dropped |= s.dropped() != 0;
            release(s.owner());
        }
        return dropped;
    }

    /** Gives a buffer's row and details blocks back for reuse; call when no thread reads or writes it any more. */
    static void release(ThreadBuffer buffer) {
        giveAll((ByteBuffer[]) CHUNKS.get(buffer), OffHeap.ROWS);
        giveAll(buffer.extras.blocks(), OffHeap.DETAILS);
    }

    private static void giveAll(ByteBuffer[] blocks, OffHeap to) {
        for (int i = 0; i < blocks.length; i++) {
            to.give(blocks[i]);
            blocks[i] = null;
        }
    }
}
