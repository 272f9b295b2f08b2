package dev.vantage.profiler.core.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Off-heap chunks for one recording window, handed to recording threads, and the bound on how many events
 * they hold.
 *
 * <p>Design: event rows live in direct buffers, outside the Java heap, so recording creates no garbage and the
 * collector never copies or scans them (as JFR keeps its buffers native). A refill thread keeps a reserve of
 * chunks allocated ahead of demand, so a recording thread only takes one from a lock-free queue; when the reserve
 * is empty it allocates inline rather than lose events, and counts that. The budget is taken a chunk at a time.
 * {@link #close()} stops the refill thread; chunks already handed out stay valid and are freed by the collector
 * with the buffers that hold them.
 */
final class ChunkPool implements AutoCloseable {

    /** Chunks the refill thread keeps ready. */
    private static final int RESERVE = 8;

    private final long chunkEvents;
    private final AtomicLong remainingEvents;
    private final ConcurrentLinkedQueue<ByteBuffer> free = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freeCount = new AtomicInteger();
    /** Blocks for event details, kept ready only once a thread asked for one (shapes, stacks, autograd links). */
    private final ConcurrentLinkedQueue<ByteBuffer> freeDetails = new ConcurrentLinkedQueue<>();
    private final AtomicInteger freeDetailsCount = new AtomicInteger();
    private volatile boolean detailsWanted;
    private final AtomicLong inlineAllocations = new AtomicLong();
    private volatile boolean closed;
    private final Thread refiller;

    ChunkPool(int chunkEvents, long maxEvents) {
        if (maxEvents < 0) {
            throw new IllegalArgumentException("negative event budget " + maxEvents);
        }
        this.chunkEvents = chunkEvents;
        // the budget is taken a chunk at a time: a cap that is not a whole number of chunks is rounded up, so a
        // cap of 5,000 keeps 5,000 events (and up to a chunk's worth more per thread) rather than none
        long chunks = maxEvents / chunkEvents + (maxEvents % chunkEvents == 0 ? 0 : 1);
        this.remainingEvents = new AtomicLong(chunks > Long.MAX_VALUE / chunkEvents ? Long.MAX_VALUE
                : chunks * chunkEvents);
        // the first chunks are ready before recording starts, so no thread allocates at the start
        for (int i = 0; i < 2 && remainingEvents.get() >= (long) (i + 1) * chunkEvents; i++) {
            ByteBuffer chunk = allocate();
            if (chunk != null) {
                free.add(chunk);
                freeCount.incrementAndGet();
            }
        }
        this.refiller = new Thread(this::refill, "vantage-chunk-refill");
        refiller.setDaemon(true);
        refiller.start();
    }

    /**
     * Takes a chunk for {@code chunkEvents} events from the budget.
     *
     * @return a zeroed chunk in native byte order, or null when the budget is spent or memory ran out
     */
    ByteBuffer take() {
        long r;
        do {
            r = remainingEvents.get();
            if (r < chunkEvents) {
                return null;
            }
        } while (!remainingEvents.compareAndSet(r, r - chunkEvents));
        ByteBuffer chunk = takeReady(free, freeCount);
        return chunk != null ? chunk : allocate();
    }

    /**
     * Takes a block for a thread's details {@link dev.vantage.trace.engine.store.Column}. Details do not count against the event budget: they belong
     * to events that did.
     *
     * @return a block in native byte order, or null when memory ran out
     */
    ByteBuffer takeDetails() {
        detailsWanted = true;
        ByteBuffer block = takeReady(freeDetails, freeDetailsCount);
        return block != null ? block : OffHeap.DETAILS.take();
    }

    /**
     * Takes a block from a reserve, waking the refill thread when the reserve runs low; null, counted as an inline
     * allocation the caller then makes, when the reserve is empty.
     */
    private ByteBuffer takeReady(ConcurrentLinkedQueue<ByteBuffer> reserve, AtomicInteger count) {
        ByteBuffer block = reserve.poll();
        if (block == null) {
            inlineAllocations.incrementAndGet();
            LockSupport.unpark(refiller);
        } else if (count.decrementAndGet() < RESERVE / 2) {
            LockSupport.unpark(refiller);
        }
        return block;
    }

    /** A recycled block, cleared, if there is one, else a new one; null when direct memory is spent. */
    private ByteBuffer allocate() {
        return OffHeap.ROWS.takeZeroed();
    }

    /**
     * Keeps rows and, once wanted, detail blocks ready, so that the page faults and clearing of fresh memory fall
     * on this thread rather than on a recording one.
     */
    private void refill() {
        while (!closed) {
            while (!closed && freeCount.get() < RESERVE && remainingEvents.get() > (long) freeCount.get()
                    * chunkEvents) {
                ByteBuffer chunk = allocate();
                if (chunk == null) {
                    break;
                }
                free.add(chunk);
                freeCount.incrementAndGet();
            }
            while (!closed && detailsWanted && freeDetailsCount.get() < RESERVE) {
                ByteBuffer block = OffHeap.DETAILS.take();
                if (block == null) {
                    break;
                }
                freeDetails.add(block);
                freeDetailsCount.incrementAndGet();
            }
            LockSupport.park(this);
        }
        ByteBuffer unused;
        while ((unused = free.poll()) != null) {
            OffHeap.ROWS.give(unused);
        }
        while ((unused = freeDetails.poll()) != null) {
            OffHeap.DETAILS.give(unused);
        }
    }

    /** Returns how often a thread found no chunk or detail block ready and allocated one itself. */
    long inlineAllocations() {
        return inlineAllocations.get();
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(refiller);
    }
}
