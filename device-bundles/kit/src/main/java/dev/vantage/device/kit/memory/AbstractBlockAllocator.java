package dev.vantage.device.kit.memory;

import java.util.ArrayList;
import java.util.List;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;

/**
 * What every {@link BlockAllocator} does the same way, so that their counters, histories, snapshots, errors and
 * profiler events agree: a subclass finds and places blocks ({@link #take}), and reports each block it hands out
 * through {@link #handOut} and each it takes back through {@link #takeBack}, under the allocator's lock (its own
 * monitor). On failure, {@link #allocate} counts the out-of-memory error, records it, reports it to the profiler
 * and throws a {@link DeviceOutOfMemoryError} with torch's message.
 */
public abstract class AbstractBlockAllocator implements BlockAllocator {

    /** The device. */
    protected final Device device;
    /** The counters, updated under the lock. */
    protected final AllocatorStats stats = new AllocatorStats();
    /** The recorded actions, updated under the lock. */
    protected final MemoryHistory history = new MemoryHistory();
    /** The cap, 0 for none; guarded by the lock. */
    protected long limit;
    private long frees;

    /** Creates the allocator of a device. */
    protected AbstractBlockAllocator(Device device) {
        this.device = device;
    }

    @Override
    public String device() {
        return device.toString();
    }

    @Override
    public int index() {
        return device.index();
    }

    /**
     * Finds room for a request and hands a block out through {@link #handOut}, or returns null when there is none;
     * called under the lock with a valid size and stream.
     */
    protected abstract MemoryBlock take(long bytes, int stream);

    /** Returns the bytes the device could still give, within the cap; called under the lock. */
    protected abstract long deviceFree();

    @Override
    public final synchronized MemoryBlock tryAllocate(long bytes, int stream) {
        check(bytes, stream);
        return take(bytes, stream);
    }

    @Override
    public final synchronized MemoryBlock allocate(long bytes, int stream) {
        check(bytes, stream);
        MemoryBlock b = take(bytes, stream);
        if (b != null) {
            return b;
        }
        stats.oom();
        long allocated = stats.current(AllocatorStats.ALLOCATED_BYTES);
        long reserved = stats.current(AllocatorStats.RESERVED_BYTES);
        long free = deviceFree();
        history.record("oom", 0, bytes, stream, free, history.frames());
        MemoryEvents.outOfMemory(device.type(), device.index(), bytes, allocated, reserved);
        throw new DeviceOutOfMemoryError(device(), bytes, deviceRequest(bytes), allocated, reserved, free,
                capacity(), limit);
    }

    /**
     * Returns what the allocator asks of the device for a request no cached block serves, for the out-of-memory
     * message: the request itself unless a subclass places requests in larger segments.
     */
    protected long deviceRequest(long bytes) {
        return bytes;
    }

    private void check(long bytes, int stream) {
        if (bytes < 0) {
            throw new IllegalArgumentException("cannot allocate " + bytes + " bytes");
        }
        if (stream < 0) {
            throw new IllegalArgumentException(device + " has no stream " + stream);
        }
    }

    /**
     * Hands a placed block out: marks it, counts it (allocation, allocated, active and requested bytes), records
     * it with the allocating code's frames when history is on, and reports it to the profiler.
     */
    protected final void handOut(MemoryBlock b, long requested) {
        boolean on = history.enabled();
        b.handOut(requested, on ? history.frames() : List.of());
        boolean small = b.small();
        stats.increase(AllocatorStats.ALLOCATION, small, 1);
        stats.increase(AllocatorStats.ALLOCATED_BYTES, small, b.size());
        stats.increase(AllocatorStats.ACTIVE, small, 1);
        stats.increase(AllocatorStats.ACTIVE_BYTES, small, b.size());
        stats.increase(AllocatorStats.REQUESTED_BYTES, small, requested);
        if (on) {
            history.record("alloc", b.address(), b.size(), b.stream(), 0, b.frames());
        }
        MemoryEvents.allocated(device.type(), device.index(), b.address(), b.size(),
                stats.current(AllocatorStats.ALLOCATED_BYTES), stats.current(AllocatorStats.RESERVED_BYTES));
    }

    /**
     * Takes a handed-out block back, before the subclass merges it: uncounts it, records the free, reports it to
     * the profiler, marks it free and wakes the threads waiting for memory.
     */
    protected final void takeBack(MemoryBlock b) {
        boolean small = b.small();
        frees++;
        stats.decrease(AllocatorStats.ALLOCATION, small, 1);
        stats.decrease(AllocatorStats.ALLOCATED_BYTES, small, b.size());
        stats.decrease(AllocatorStats.ACTIVE, small, 1);
        stats.decrease(AllocatorStats.ACTIVE_BYTES, small, b.size());
        stats.decrease(AllocatorStats.REQUESTED_BYTES, small, b.requested());
        if (history.enabled()) {
            List<MemorySnapshot.Frame> where = history.frames();
            history.record("free_requested", b.address(), b.size(), b.stream(), 0, where);
            history.record("free_completed", b.address(), b.size(), b.stream(), 0, where);
        }
        MemoryEvents.allocated(device.type(), device.index(), b.address(), -b.size(),
                stats.current(AllocatorStats.ALLOCATED_BYTES), stats.current(AllocatorStats.RESERVED_BYTES));
        b.takeBack();
        notifyAll();
    }

    /**
     * Returns a snapshot of the given segments with the recorded history (the snapshot itself recorded last), as
     * the trace of this device's index.
     */
    protected final MemorySnapshot snapshotOf(List<MemorySnapshot.Segment> segments) {
        if (history.enabled()) {
            history.record("snapshot", 0, 0, 0, 0, List.of());
        }
        List<List<MemorySnapshot.TraceEntry>> traces = new ArrayList<>();
        for (int i = 0; i < device.index(); i++) {
            traces.add(List.of());
        }
        traces.add(history.entries());
        return new MemorySnapshot(segments, traces);
    }

    @Override
    public synchronized long frees() {
        return frees;
    }

    @Override
    public synchronized boolean awaitFree(long seen, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        while (frees == seen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    @Override
    public synchronized MemoryStats stats() {
        return new MemoryStats(device(), stats.values());
    }

    @Override
    public synchronized void resetPeakStats() {
        stats.resetPeak();
    }

    @Override
    public synchronized void resetAccumulatedStats() {
        stats.resetAccumulated();
    }

    @Override
    public synchronized void recordHistory(int maxEntries, boolean stacks) {
        history.enable(maxEntries, stacks);
    }

    @Override
    public synchronized void limit(long bytes) {
        limit = Math.max(0, bytes);
    }

    @Override
    public synchronized long limit() {
        return limit;
    }
}
