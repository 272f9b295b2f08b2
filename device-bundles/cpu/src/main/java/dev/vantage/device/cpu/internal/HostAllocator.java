package dev.vantage.device.cpu.internal;

import java.util.Map;
import java.util.TreeMap;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/**
 * The CPU device's tracked allocator: every tensor the runtime allocates on the host, of any dtype, gets its
 * storage here. It counts bytes and blocks as torch's {@code memory_stats()} does and reports each allocation and
 * free to the profiler through {@link MemoryEvents}. A block is freed when the runtime releases its storage (the
 * last tensor using it was closed), or, for a storage nobody closed, when the garbage collector finds it (on the
 * runtime's collector thread). Host memory is not reserved ahead, so reserved equals allocated.
 *
 * <p>Counters and reports change together under the allocator's monitor, as a device allocator's do, so that the
 * {@code Total Allocated} of every {@code [memory]} event is the running sum of the events before it, whichever
 * thread allocates or frees. Registered also under its own class, for the CPU backend in this bundle.
 */
@Component(service = {MemoryAllocator.class, HostAllocator.class})
public class HostAllocator implements MemoryAllocator {

    private static final String DEVICE = "cpu";

    // guarded by this
    private long current;
    private long peak;
    private long allocatedTotal;
    private long freedTotal;
    private long blocks;
    private long peakBlocks;
    private long allocations;
    private long frees;
    private long ooms;
    private long nextAddress;

    /** The allocator of the platform: addresses from 0x1000 on. */
    public HostAllocator() {
        this(0x1000);
    }

    /** An allocator whose addresses start elsewhere, so a test can tell its reports from other allocators'. */
    HostAllocator(long firstAddress) {
        this.nextAddress = firstAddress;
    }

    /**
     * Returns a new zero-filled host storage of {@code n} elements, counted and reported.
     *
     * @throws IllegalArgumentException if {@code n} is negative
     * @throws OutOfMemoryError if the heap cannot hold it; the message names the device, the request and the free
     *     heap, and the failure is counted and reported
     */
    Storage allocate(DType dtype, int n) {
        long bytes = 16L + (long) dtype.itemSize() * n;   // array header and payload, as the JVM lays arrays out
        long address;
        synchronized (this) {
            address = nextAddress;
            nextAddress += 64;
        }
        Storage storage;
        try {
            storage = Storage.create(Device.CPU, dtype, n, null, address, () -> freed(address, bytes));
        } catch (OutOfMemoryError e) {
            long now;
            synchronized (this) {
                ooms++;
                now = current;
                MemoryEvents.outOfMemory(DEVICE, -1, bytes, now, now);
            }
            Runtime rt = Runtime.getRuntime();
            long free = rt.maxMemory() - rt.totalMemory() + rt.freeMemory();
            OutOfMemoryError error = new OutOfMemoryError(Device.CPU + ": cannot allocate " + bytes + " bytes ("
                    + n + " x " + dtype.profileName() + "); " + free + " bytes of the heap are free");
            error.initCause(e);
            throw error;
        }
        // counted once the array exists, so a failure counts nothing
        synchronized (this) {
            current += bytes;
            peak = Math.max(peak, current);
            blocks++;
            peakBlocks = Math.max(peakBlocks, blocks);
            allocatedTotal += bytes;
            allocations++;
            MemoryEvents.allocated(DEVICE, -1, address, bytes, current, current);
        }
        return storage;
    }

    private synchronized void freed(long address, long bytes) {
        current -= bytes;
        blocks--;
        freedTotal += bytes;
        frees++;
        MemoryEvents.allocated(DEVICE, -1, address, -bytes, current, current);
    }

    @Override
    public String device() {
        return DEVICE;
    }

    /** The counters under torch's {@code memory_stats()} names. */
    @Override
    public synchronized MemoryStats stats() {
        Map<String, Long> v = new TreeMap<>();
        for (String kind : new String[] {"allocated_bytes", "reserved_bytes", "active_bytes"}) {
            v.put(kind + ".all.current", current);
            v.put(kind + ".all.peak", peak);
            v.put(kind + ".all.allocated", allocatedTotal);
            v.put(kind + ".all.freed", freedTotal);
        }
        v.put("allocation.all.current", blocks);
        v.put("allocation.all.peak", peakBlocks);
        v.put("allocation.all.allocated", allocations);
        v.put("allocation.all.freed", frees);
        v.put("num_alloc_retries", 0L);
        v.put("num_ooms", ooms);
        return new MemoryStats(DEVICE, v);
    }

    @Override
    public synchronized void resetPeakStats() {
        peak = current;
        peakBlocks = blocks;
    }
}
