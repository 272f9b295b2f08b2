package dev.vantage.profiler.core.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on how many events one profile may hold over all threads. Threads take it a chunk at a time, so the
 * shared counter is touched once per chunk, not once per event.
 */
final class EventBudget {

    private final AtomicLong remaining;

    EventBudget(long maxEvents) {
        if (maxEvents < 0) {
            throw new IllegalArgumentException("negative event budget " + maxEvents);
        }
        this.remaining = new AtomicLong(maxEvents);
    }

    /** Takes {@code n} events from the budget; false, and nothing taken, when fewer remain. */
    boolean take(long n) {
        long r;
        do {
            r = remaining.get();
            if (r < n) {
                return false;
            }
        } while (!remaining.compareAndSet(r, r - n));
        return true;
    }
}
