package dev.vantage.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What keeping torch's exact device-wide counters costs for one allocate/free pair, two ways: as the caching
 * allocator does it, plain updates under the device's monitor (entered once for the allocation, once for the
 * free), and as a lock-free fast path would have to, each counter an atomic update with its peak raised by
 * compare-and-set. The counters are the five an allocation and a free change (allocation, active, allocated,
 * active and requested bytes), each for all blocks and for the block's pool, with current, peak and the running
 * totals added and removed. Run with {@code -t 2} for two threads on one device.
 * Run: {@code java -jar benchmarks/target/benchmarks.jar AllocatorCounterCosts}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class AllocatorCounterCosts {

    private static final int STATS = 5;
    private static final long SIZE = 4096;
    /** Per statistic: all blocks' current, peak, added, removed; then the pool's. */
    private static final int STRIDE = 8;

    private final long[] plain = new long[STATS * STRIDE];
    private final AtomicLongArray atomic = new AtomicLongArray(STATS * STRIDE);
    private final Object device = new Object();

    @Benchmark
    public long underTheMonitor() {
        synchronized (device) {
            for (int s = 0; s < STATS; s++) {
                raise(s * STRIDE);
                raise(s * STRIDE + 4);
            }
        }
        synchronized (device) {
            for (int s = 0; s < STATS; s++) {
                lower(s * STRIDE);
                lower(s * STRIDE + 4);
            }
        }
        return plain[0];
    }

    private void raise(int i) {
        long now = plain[i] + SIZE;
        plain[i] = now;
        plain[i + 2] += SIZE;
        if (now > plain[i + 1]) {
            plain[i + 1] = now;
        }
    }

    private void lower(int i) {
        plain[i] -= SIZE;
        plain[i + 3] += SIZE;
    }

    @Benchmark
    public long atomicUpdates() {
        for (int s = 0; s < STATS; s++) {
            raiseAtomically(s * STRIDE);
            raiseAtomically(s * STRIDE + 4);
        }
        for (int s = 0; s < STATS; s++) {
            lowerAtomically(s * STRIDE);
            lowerAtomically(s * STRIDE + 4);
        }
        return atomic.get(0);
    }

    private void raiseAtomically(int i) {
        long now = atomic.addAndGet(i, SIZE);
        atomic.getAndAdd(i + 2, SIZE);
        long peak = atomic.get(i + 1);
        while (now > peak && !atomic.compareAndSet(i + 1, peak, now)) {
            peak = atomic.get(i + 1);
        }
    }

    private void lowerAtomically(int i) {
        atomic.getAndAdd(i, -SIZE);
        atomic.getAndAdd(i + 3, SIZE);
    }
}
