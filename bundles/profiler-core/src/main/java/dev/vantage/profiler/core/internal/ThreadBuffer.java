package dev.vantage.profiler.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;

import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;

/**
 * The events one thread records in one cycle: the trace engine's 24-byte host rows ({@link HostRows}: start, end,
 * name id, kind and nesting depth) in off-heap chunks from the cycle's {@link ChunkPool}, and a details column for
 * what some events carry ({@link Details}). At stop the chunks are handed to the engine as they are ({@link
 * Snapshot#hostThread}), without a copy.
 *
 * <p>Concurrency: only the owning thread writes. It publishes each event with a release store of {@code size}
 * after writing the row; a reader that acquires {@code size} sees every row below it and the details written
 * before. An event's end is a plain store: it is visible to a reader whose thread joined the recording thread or
 * is that thread, which is how profiles are read; an end that is not visible reads as 0 and the event is closed at
 * the stop time.
 *
 * <p>When the pool has no chunk left, the thread drops every further event and counts it; a dropped event is
 * still tracked for nesting, so the depth of later events stays right.
 */
final class ThreadBuffer {

    static final int CHUNK_SHIFT = HostRows.CHUNK_SHIFT;
    static final int CHUNK_EVENTS = HostRows.CHUNK_ROWS;
    static final int CHUNK_MASK = HostRows.CHUNK_MASK;
    static final int ROW_BYTES = HostRows.ROW_BYTES;
    /** Bits of a handle that hold the slot; the bits above hold the buffer index (the engine's handle). */
    static final int SLOT_BITS = TraceData.SLOT_BITS;
    static final long SLOT_MASK = TraceData.SLOT_MASK;
    /** The slot of a handle whose event was dropped. */
    static final long DROPPED_SLOT = SLOT_MASK;
    private static final VarHandle SIZE;
    private static final VarHandle DROPPED;
    private static final VarHandle EXTRAS_SIZE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            SIZE = lookup.findVarHandle(ThreadBuffer.class, "size", int.class);
            DROPPED = lookup.findVarHandle(ThreadBuffer.class, "dropped", long.class);
            EXTRAS_SIZE = lookup.findVarHandle(ThreadBuffer.class, "extrasSize", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final int index;
    /** The recorder this buffer belongs to, as its token. */
    final Object recorder;
    final long threadId;
    final String threadName;
    final Column extras;
    /** The inputs this thread recorded lately, so that an op recorded again with the same ones refers back. */
    final Details.Recent recentInputs = new Details.Recent();
    private final ChunkPool pool;
    private final Blocks blocks;
    private ByteBuffer[] chunks;
    /** The chunk rows are reserved in now, and its first slot. */
    private ByteBuffer newestChunk;
    private int newestChunkStart = Integer.MAX_VALUE;
    private int reserved;
    private int size;
    private int depth;
    private boolean full;
    private long dropped;
    /**
     * The bytes of {@link #extras} the published rows use; written with release and read with acquire, as
     * {@link #size}: a snapshot may read a newer value than its rows need (the next event's details), and must then
     * see the blocks that hold them. A plain load allowed a weakly ordered machine to see the size before the blocks.
     */
    private long extrasSize;

    ThreadBuffer(int index, Thread thread, ChunkPool pool, Object recorder) {
        this.index = index;
        this.recorder = recorder;
        this.threadId = thread.getId();
        this.threadName = thread.getName();
        this.pool = pool;
        this.blocks = new Blocks(pool);
        this.chunks = blocks.rows;
        this.extras = blocks.details;
        // once no writer (this buffer) and no reader (snapshots hold it) remains, its blocks are reused
        OffHeap.CLEANER.register(this, blocks);
    }

    /** The off-heap blocks of one buffer, returned to {@link OffHeap} when the buffer is gone. */
    private static final class Blocks implements Runnable {
        ByteBuffer[] rows = new ByteBuffer[8];
        final Column details;

        Blocks(ChunkPool pool) {
            this.details = Column.longsInWholeBlocks(bytes -> pool.takeDetails());
        }

        @Override
        public void run() {
            for (ByteBuffer b : rows) {
                OffHeap.ROWS.give(b);
            }
            for (ByteBuffer b : details.blocks()) {
                OffHeap.DETAILS.give(b);
            }
        }
    }

    /**
     * Reserves the next row for an event one level deeper than the open events. Nothing is written yet: the caller
     * appends the event's details, if any, then writes the row once with {@link #started}.
     *
     * @return the slot, or -1 when the event is dropped
     */
    int reserve() {
        int n = reserved;
        depth++;
        if ((n & CHUNK_MASK) == 0 && !addChunk(n >>> CHUNK_SHIFT)) {
            DROPPED.setRelease(this, dropped + 1);
            return -1;
        }
        reserved = n + 1;
        return n;
    }

    /**
     * Writes a reserved row (start, name, kind, the depth it was reserved at, whether it has details) and publishes
     * it. The chunk came zeroed, so the end reads 0 until {@link #end} writes it.
     *
     * @param withDetails whether the caller appended the event's details to {@link #extras} since reserving
     */
    void started(int slot, int nameId, int kind, boolean withDetails, long startNanos) {
        int kindWord = HostRows.kindWord(kind, withDetails, depth - 1);
        ByteBuffer chunk = chunk(slot);
        int at = (slot & CHUNK_MASK) * ROW_BYTES;
        chunk.putLong(at + HostRows.START, startNanos);
        chunk.putLong(at + HostRows.HEADER, HostRows.header(nameId, kindWord));
        if (withDetails) {
            EXTRAS_SIZE.setRelease(this, extras.size());
        }
        SIZE.setRelease(this, slot + 1);
    }

    /** Records the end of the event of a handle; the slot may be {@link #DROPPED_SLOT}. */
    void end(long handle, long endNanos) {
        depth--;
        long slot = handle & SLOT_MASK;
        if (slot != DROPPED_SLOT) {
            int s = (int) slot;
            chunk(s).putLong((s & CHUNK_MASK) * ROW_BYTES + HostRows.END, endNanos);
        }
    }

    /**
     * The chunk of a slot: an event is mostly written and ended in the chunk of the newest row, one load away
     * instead of two, which counts because a recorded op waits for every load before it reads the clock.
     */
    private ByteBuffer chunk(int slot) {
        return slot >= newestChunkStart ? newestChunk : chunks[slot >>> CHUNK_SHIFT];
    }

    long handle(int slot) {
        return ((long) index << SLOT_BITS) | (slot < 0 ? DROPPED_SLOT : slot);
    }

    private boolean addChunk(int c) {
        if (full) {
            return false;
        }
        ByteBuffer chunk = pool.take();
        if (chunk == null) {
            full = true;
            return false;
        }
        if (c == chunks.length) {
            chunks = Arrays.copyOf(chunks, c * 2);
            blocks.rows = chunks;
        }
        chunks[c] = chunk;
        newestChunk = chunk;
        newestChunkStart = c << CHUNK_SHIFT;
        return true;
    }

    /** Returns a stable view of what was recorded so far; call after recording stopped. */
    Snapshot snapshot() {
        int n = (int) SIZE.getAcquire(this);
        long d = (long) DROPPED.getAcquire(this);
        long e = (long) EXTRAS_SIZE.getAcquire(this);
        return new Snapshot(this, index, threadId, threadName, chunks.clone(), n, d, extras.frozen(e));
    }

    /**
     * The recorded events of one thread, frozen at stop. It holds its buffer, so the buffer's blocks are not
     * recycled while the snapshot can still be read.
     */
    record Snapshot(ThreadBuffer owner, int index, long threadId, String threadName, ByteBuffer[] chunks, int size,
            long dropped, Column extras) {

        /**
         * Returns the snapshot without the events that began after a time: a thread that was still dispatching
         * when its window stopped may have recorded a few more before it noticed. A thread's events are in the
         * order they began.
         */
        Snapshot until(long stopNanos) {
            HostRows rows = rows();
            int n = size;
            while (n > 0 && rows.start(n - 1) > stopNanos) {
                n--;
            }
            return n == size ? this : new Snapshot(owner, index, threadId, threadName, chunks, n, dropped, extras);
        }

        /** The rows, as the engine reads them. */
        HostRows rows() {
            return HostRows.of(chunks, size);
        }

        /** The thread's events as the engine takes them: the same blocks, no copy. */
        HostThread hostThread() {
            return new HostThread(threadId, threadName, dropped, rows(), extras.size() == 0 ? null : extras);
        }
    }
}
