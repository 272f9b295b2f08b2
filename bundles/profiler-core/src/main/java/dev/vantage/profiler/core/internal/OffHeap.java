package dev.vantage.profiler.core.internal;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Recycled off-heap blocks, shared by every profile. A recording thread's blocks come back here when its
 * {@link ThreadBuffer} is no longer reachable, from writers or readers: then nothing can touch them any more.
 * Reusing blocks spares a long profile (or a schedule with many cycles) fresh memory and its page faults for
 * every window. At most {@code maxBlocks} blocks are kept; the rest are left to the collector.
 */
final class OffHeap {

    static final Cleaner CLEANER = Cleaner.create();
    /** Event rows: 16,384 rows of 24 bytes. */
    static final OffHeap ROWS = new OffHeap(ThreadBuffer.CHUNK_EVENTS * ThreadBuffer.ROW_BYTES, 256);
    /** Event details: 32,768 longs. */
    static final OffHeap DETAILS = new OffHeap(LongArena.BLOCK_LONGS * Long.BYTES, 128);

    private static final byte[] ZEROS = new byte[64 * 1024];

    private final int bytes;
    private final int maxBlocks;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();

    private OffHeap(int bytes, int maxBlocks) {
        this.bytes = bytes;
        this.maxBlocks = maxBlocks;
    }

    /** Returns a recycled block, or a new one; null when direct memory is spent. */
    ByteBuffer take() {
        ByteBuffer b = recycled();
        return b != null ? b : allocate();
    }

    /**
     * Returns a block whose bytes are all zero: a new one, or a recycled one cleared here, so that whoever takes
     * it (the chunk pool's refill thread, ahead of demand) pays for the clearing rather than each write into it.
     */
    ByteBuffer takeZeroed() {
        ByteBuffer b = recycled();
        if (b == null) {
            return allocate();   // a new direct buffer is zeroed already
        }
        for (int at = 0; at < bytes; at += ZEROS.length) {
            b.put(at, ZEROS, 0, Math.min(ZEROS.length, bytes - at));
        }
        return b;
    }

    /** Returns a block given back earlier, or null when none is kept. */
    private ByteBuffer recycled() {
        ByteBuffer b = free.poll();
        if (b != null) {
            count.decrementAndGet();
        }
        return b;
    }

    private ByteBuffer allocate() {
        try {
            return ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        } catch (OutOfMemoryError e) {
            return null;
        }
    }

    /** Takes back a block nothing refers to any more. */
    void give(ByteBuffer block) {
        if (block != null && block.capacity() == bytes && count.incrementAndGet() <= maxBlocks) {
            free.add(block);
        } else if (block != null) {
            count.decrementAndGet();
        }
    }
}
