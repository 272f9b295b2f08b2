package dev.vantage.device.mps.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands a device's streams out to threads, as the MPS stream pool does: the first thread to ask gets the default
 * stream 0, every later thread the next of the pooled streams 1 to {@code size - 1}, round-robin; a thread keeps
 * its stream for life. So {@code n} threads get {@code n} distinct streams while {@code n <= size}, and beyond
 * that threads share pooled streams. Lock-free.
 */
final class StreamPool {

    private final int size;
    private final AtomicBoolean defaultTaken = new AtomicBoolean();
    private final AtomicInteger next = new AtomicInteger();
    private final ThreadLocal<Integer> assigned = ThreadLocal.withInitial(this::assign);

    /**
     * Creates a pool.
     *
     * @param size the stream count, 1 or more
     */
    StreamPool(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("a stream pool needs 1 stream or more, not " + size);
        }
        this.size = size;
    }

    /** Returns the calling thread's stream, assigning one at its first call. */
    int current() {
        return assigned.get();
    }

    private int assign() {
        if (size == 1 || defaultTaken.compareAndSet(false, true)) {
            return 0;
        }
        return 1 + Math.floorMod(next.getAndIncrement(), size - 1);
    }
}
