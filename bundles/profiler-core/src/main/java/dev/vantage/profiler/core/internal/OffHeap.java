package dev.vantage.profiler.core.internal;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.trace.engine.store.Column;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * Recycled off-heap blocks, shared by every profile. A recording thread's blocks come back here when its
 * {@link ThreadBuffer} is no longer reachable, from writers or readers: then nothing can touch them any more.
 * Reusing blocks spares a long profile (or a schedule with many cycles) fresh memory and its page faults for
 * every window. At most {@code maxBlocks} blocks are kept; the rest are left to the collector.
 */
final class OffHeap {

    static final Cleaner CLEANER = Cleaner.create();
    /** Event rows: 16,384 rows of 24 bytes. */
    static final int MAX_KEPT_ROW_BLOCKS = 256;
    static final OffHeap ROWS = new OffHeap(ThreadBuffer.CHUNK_EVENTS * ThreadBuffer.ROW_BYTES, MAX_KEPT_ROW_BLOCKS);
    /** Event details: 32,768 longs. */
    static final OffHeap DETAILS = new OffHeap(Column.BLOCK_VALUES * Long.BYTES, 128);

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
        // past the budget the JDK would stall the caller in Bits.reserveMemory (collections and sleeps) before
        // it refused: refuse first, so that events are dropped and counted instead
        long used = RESERVED.addAndGet(bytes);
        if (used > budget) {
            RESERVED.addAndGet(-bytes);
            return null;
        }
        try {
            ByteBuffer b = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
            int size = bytes;
            CLEANER.register(b, () -> RESERVED.addAndGet(-size));
            return b;
        } catch (OutOfMemoryError e) {
            RESERVED.addAndGet(-bytes);
            return null;
        }
    }

    /** Off-heap bytes the profiler holds now, recycled blocks and blocks in use alike. */
    private static final AtomicLong RESERVED = new AtomicLong();

    /** The most off-heap memory the profiler takes: half the JVM's direct-memory limit. */
    private static volatile long budget = maxDirectMemory() / 2;

    /** Sets the budget, for tests; returns the one it replaces. */
    static long budget(long bytes) {
        long old = budget;
        budget = bytes;
        return old;
    }

    /** Returns the off-heap bytes held now. */
    static long reserved() {
        return RESERVED.get();
    }

    /**
     * The JVM's direct-memory limit: {@code -XX:MaxDirectMemorySize} when given, else the heap's maximum, which is
     * the JDK's default.
     */
    static long maxDirectMemory() {
        long limit = Runtime.getRuntime().maxMemory();
        try {
            for (String arg : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("-XX:MaxDirectMemorySize=")) {
                    limit = parseSize(arg.substring("-XX:MaxDirectMemorySize=".length()));
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // no management: the default stands
        }
        return limit;
    }

    /** {@code 512m}, {@code 2g}, {@code 1048576}: a JVM size flag's value in bytes. */
    static long parseSize(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        long unit = 1;
        char last = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
        if (last == 'k' || last == 'm' || last == 'g' || last == 't') {
            unit = switch (last) {
                case 'k' -> 1L << 10;
                case 'm' -> 1L << 20;
                case 'g' -> 1L << 30;
                default -> 1L << 40;
            };
            t = t.substring(0, t.length() - 1);
        }
        return Long.parseLong(t) * unit;
    }

    /** Lets go of every kept block, for tests that need allocation to start from nothing. */
    void drain() {
        while (recycled() != null) {
            // left to the collector
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
