package dev.vantage.device.kit.emulation;

import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.dispatch.MemoryEvents;
import dev.vantage.profiler.spi.MemoryStats;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/**
 * An emulated device's memory: a capacity, separate from the host's, from which blocks are handed out rounded
 * to an alignment and reserved from the device in whole pages, as a caching allocator reserves segments. The
 * values live in host arrays, but every byte is accounted against the device's capacity; asking for more than
 * is free fails with an out-of-memory error naming the device, the request and the free bytes. Blocks are freed
 * when their storage is garbage-collected; before failing for lack of memory, the allocator asks for a
 * collection and waits briefly for freed blocks, as torch's allocator frees its cache and retries
 * ({@code num_alloc_retries}). Every allocation and free is reported to the profiler through
 * {@link MemoryEvents}. Thread-safe.
 */
public final class DeviceMemory {

    private static final Cleaner CLEANER = Cleaner.create();
    private static final long RETRY_WAIT_NANOS = 200_000_000;

    private final Device device;
    private final long capacity;
    private final int alignment;
    private final long pageSize;
    private long nextAddress;
    private long allocated;
    private long peakAllocated;
    private long reserved;
    private long peakReserved;
    private long allocatedTotal;
    private long freedTotal;
    private long blocks;
    private long peakBlocks;
    private long allocations;
    private long frees;
    private long retries;
    private long ooms;

    /**
     * Creates a device's memory.
     *
     * @param device the device, such as {@code npu:0}
     * @param capacity the bytes the device has
     * @param alignment every block's size and address are multiples of it; a power of two
     * @param pageSize memory is reserved from the device in multiples of it
     * @param baseAddress the address of the first block
     * @throws IllegalArgumentException if a size is not positive or the alignment not a power of two
     */
    public DeviceMemory(Device device, long capacity, int alignment, long pageSize, long baseAddress) {
        if (capacity <= 0 || pageSize <= 0 || alignment <= 0 || Integer.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("device memory needs a positive capacity and page size and a"
                    + " power-of-two alignment; got " + capacity + ", " + pageSize + ", " + alignment);
        }
        this.device = device;
        this.capacity = capacity;
        this.alignment = alignment;
        this.pageSize = pageSize;
        this.nextAddress = baseAddress;
    }

    /** Returns the device. */
    public Device device() {
        return device;
    }

    /** Returns the device's capacity in bytes. */
    public long capacity() {
        return capacity;
    }

    /** Returns the bytes not handed out. */
    public synchronized long free() {
        return capacity - allocated;
    }

    /**
     * Allocates a zero-filled storage for {@code n} elements in device memory; the storage's handle is its
     * {@link DeviceBlock}.
     *
     * @throws OutOfMemoryError if the device has not enough free memory even after a retry
     */
    public Storage allocate(DType dtype, int n) {
        long requested = (long) dtype.itemSize() * n;
        DeviceBlock block = reserve(requested);
        Storage storage;
        try {
            storage = Storage.create(device, dtype, n, block);
        } catch (OutOfMemoryError e) {
            release(block);
            throw e;
        }
        CLEANER.register(storage, () -> release(block));
        return storage;
    }

    private DeviceBlock reserve(long requested) {
        long size = Math.max(alignment, (requested + alignment - 1) & -(long) alignment);
        synchronized (this) {
            if (allocated + size > capacity) {
                retries++;
                System.gc();
                long deadline = System.nanoTime() + RETRY_WAIT_NANOS;
                while (allocated + size > capacity && System.nanoTime() < deadline) {
                    try {
                        wait(10);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            if (allocated + size > capacity) {
                ooms++;
                MemoryEvents.outOfMemory(device.type(), device.index(), requested, allocated, reserved);
                throw new OutOfMemoryError(device + " out of memory: tried to allocate " + requested
                        + " bytes; " + (capacity - allocated) + " bytes free of " + capacity + " (" + allocated
                        + " allocated)");
            }
            DeviceBlock block = new DeviceBlock(nextAddress, size, requested);
            nextAddress += size;
            allocated += size;
            peakAllocated = Math.max(peakAllocated, allocated);
            long pages = (allocated + pageSize - 1) / pageSize;
            reserved = Math.max(reserved, Math.min(capacity, pages * pageSize));
            peakReserved = Math.max(peakReserved, reserved);
            allocatedTotal += size;
            blocks++;
            peakBlocks = Math.max(peakBlocks, blocks);
            allocations++;
            MemoryEvents.allocated(device.type(), device.index(), block.address(), size, allocated, reserved);
            return block;
        }
    }

    private synchronized void release(DeviceBlock block) {
        allocated -= block.bytes();
        freedTotal += block.bytes();
        blocks--;
        frees++;
        MemoryEvents.allocated(device.type(), device.index(), block.address(), -block.bytes(), allocated, reserved);
        notifyAll();
    }

    /** Gives reserved pages no block uses back to the device, as torch's {@code empty_cache()}. */
    public synchronized void emptyCache() {
        reserved = Math.min(capacity, (allocated + pageSize - 1) / pageSize * pageSize);
    }

    /** Resets the peaks to the current values. */
    public synchronized void resetPeakStats() {
        peakAllocated = allocated;
        peakReserved = reserved;
        peakBlocks = blocks;
    }

    /** Returns the counters under torch's {@code memory_stats()} names. */
    public synchronized MemoryStats stats() {
        Map<String, Long> v = new TreeMap<>();
        put(v, "allocated_bytes", allocated, peakAllocated, allocatedTotal, freedTotal);
        put(v, "active_bytes", allocated, peakAllocated, allocatedTotal, freedTotal);
        put(v, "requested_bytes", allocated, peakAllocated, allocatedTotal, freedTotal);
        put(v, "reserved_bytes", reserved, peakReserved, peakReserved, 0);
        put(v, "allocation", blocks, peakBlocks, allocations, frees);
        put(v, "active", blocks, peakBlocks, allocations, frees);
        v.put("num_alloc_retries", retries);
        v.put("num_ooms", ooms);
        v.put("num_device_alloc", allocations);
        v.put("num_device_free", frees);
        return new MemoryStats(device.toString(), v);
    }

    private static void put(Map<String, Long> v, String stat, long current, long peak, long total, long freed) {
        v.put(stat + ".all.current", current);
        v.put(stat + ".all.peak", peak);
        v.put(stat + ".all.allocated", total);
        v.put(stat + ".all.freed", freed);
    }
}
