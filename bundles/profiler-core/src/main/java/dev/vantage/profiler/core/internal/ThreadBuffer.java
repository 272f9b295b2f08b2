package dev.vantage.profiler.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The events one thread records during one profile, in columns of primitive arrays cut into fixed-size chunks.
 *
 * <p>Concurrency: only the owning thread writes. It publishes each new event with a release store of
 * {@code size}; a reader that acquires {@code size} after the profile stopped sees every event below it. An event's
 * end is a plain store: it is visible to the stopping thread when the recording thread finished its work before
 * the stop (joined, or the same thread), which is how profiles are used; an end that is not visible reads as 0 and
 * the event is closed at the stop time.
 *
 * <p>Buffering: chunks come from the profile's {@link EventBudget}; when it is spent, further events are dropped
 * and counted, never silently lost. Nothing is allocated per event; a chunk is allocated per {@link #CHUNK_SIZE}
 * events.
 */
final class ThreadBuffer {

    static final int CHUNK_SHIFT = 13;
    static final int CHUNK_SIZE = 1 << CHUNK_SHIFT;
    static final int CHUNK_MASK = CHUNK_SIZE - 1;
    /** Bits of a handle that hold the slot; the bits above hold the buffer index. */
    static final int SLOT_BITS = 40;
    static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    /** The slot of a handle whose event was dropped. */
    static final long DROPPED_SLOT = SLOT_MASK;

    private static final VarHandle SIZE;
    private static final VarHandle DROPPED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SIZE = lookup.findVarHandle(ThreadBuffer.class, "size", int.class);
            DROPPED = lookup.findVarHandle(ThreadBuffer.class, "dropped", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One chunk of columns. */
    static final class Chunk {
        final long[] start = new long[CHUNK_SIZE];
        final long[] end = new long[CHUNK_SIZE];
        final int[] name = new int[CHUNK_SIZE];
        /** Kind in the low 4 bits, nesting depth above. */
        final int[] kindAndDepth = new int[CHUNK_SIZE];
    }

    final int index;
    final long threadId;
    final String threadName;
    private final EventBudget budget;
    private Chunk[] chunks = new Chunk[4];
    private int size;
    private int depth;
    private boolean full;
    private long dropped;

    ThreadBuffer(int index, Thread thread, EventBudget budget) {
        this.index = index;
        this.threadId = thread.getId();
        this.threadName = thread.getName();
        this.budget = budget;
    }

    /**
     * Records the start of an event.
     *
     * @return the handle for {@link #end}: buffer index and slot
     */
    long begin(int nameId, int kind, long startNanos) {
        int n = size;
        int c = n >>> CHUNK_SHIFT;
        int i = n & CHUNK_MASK;
        if (i == 0 && !addChunk(c)) {
            depth++;
            DROPPED.setRelease(this, dropped + 1);
            return ((long) index << SLOT_BITS) | DROPPED_SLOT;
        }
        Chunk chunk = chunks[c];
        chunk.start[i] = startNanos;
        chunk.name[i] = nameId;
        chunk.kindAndDepth[i] = kind | (depth << 4);
        depth++;
        SIZE.setRelease(this, n + 1);
        return ((long) index << SLOT_BITS) | n;
    }

    /** Records the end of the event {@link #begin} returned the handle of. */
    void end(long handle, long endNanos) {
        depth--;
        long slot = handle & SLOT_MASK;
        if (slot != DROPPED_SLOT) {
            chunks[(int) (slot >>> CHUNK_SHIFT)].end[(int) (slot & CHUNK_MASK)] = endNanos;
        }
    }

    private boolean addChunk(int c) {
        if (full || !budget.take(CHUNK_SIZE)) {
            full = true;
            return false;
        }
        if (c == chunks.length) {
            chunks = Arrays.copyOf(chunks, c * 2);
        }
        chunks[c] = new Chunk();
        return true;
    }

    /** Returns a stable view of what was recorded so far; call after the profile stopped. */
    Snapshot snapshot() {
        int n = (int) SIZE.getAcquire(this);
        return new Snapshot(index, threadId, threadName, chunks, n, (long) DROPPED.getAcquire(this));
    }

    /** The recorded events of one thread, frozen at stop. */
    record Snapshot(int index, long threadId, String threadName, Chunk[] chunks, int size, long dropped) {

        long start(int i) {
            return chunks[i >>> CHUNK_SHIFT].start[i & CHUNK_MASK];
        }

        long end(int i) {
            return chunks[i >>> CHUNK_SHIFT].end[i & CHUNK_MASK];
        }

        int name(int i) {
            return chunks[i >>> CHUNK_SHIFT].name[i & CHUNK_MASK];
        }

        int kind(int i) {
            return chunks[i >>> CHUNK_SHIFT].kindAndDepth[i & CHUNK_MASK] & 0xF;
        }

        int depth(int i) {
            return chunks[i >>> CHUNK_SHIFT].kindAndDepth[i & CHUNK_MASK] >>> 4;
        }
    }
}
