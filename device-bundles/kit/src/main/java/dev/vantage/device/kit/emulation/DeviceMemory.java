package dev.vantage.device.kit.emulation;

import dev.vantage.device.kit.memory.BlockAllocator;
import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.DeviceOutOfMemoryError;
import dev.vantage.device.kit.memory.EmulatedHeap;
import dev.vantage.device.kit.memory.MemoryBlock;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/**
 * An emulated device's memory as tensors see it: storages whose values live in host arrays but whose bytes are
 * blocks of a {@link BlockAllocator} over the device's own capacity. A block goes back to the allocator when the
 * runtime releases its storage (the last tensor using it was closed), or, for a storage nobody closed, when the
 * garbage collector finds it. When the allocator has no memory even after freeing its cache, a garbage collection
 * is asked for (for such unclosed storages) and the allocation tried again as frees arrive, for at most 200 ms,
 * before the allocator's {@link DeviceOutOfMemoryError}. Thread-safe.
 */
public final class DeviceMemory {

    private static final long RECLAIM_NANOS = 200_000_000;

    private final Device device;
    private final BlockAllocator allocator;

    /**
     * Creates a device's memory over an allocator.
     *
     * @param device the device, such as {@code npu:0}
     * @param allocator the device's allocator
     */
    public DeviceMemory(Device device, BlockAllocator allocator) {
        this.device = device;
        this.allocator = allocator;
    }

    /**
     * Creates a device's memory with PyTorch's caching allocator over an emulated heap of {@code capacity} bytes
     * from {@code baseAddress}. Blocks are rounded to 512 bytes and segments sized as torch sizes them.
     *
     * @param device the device, such as {@code npu:0}
     * @param capacity the bytes the device has
     * @param alignment the device's alignment, a power of two of at most 512 (every block is 512-byte aligned)
     * @param pageSize unused: segments are sized as torch's allocator sizes them
     * @param baseAddress the address of the first segment
     * @throws IllegalArgumentException if the capacity is not positive or the alignment not a power of two up
     *     to 512
     * @deprecated give the allocator: {@code new DeviceMemory(device, new CachingAllocator(device,
     *     new EmulatedHeap(baseAddress, capacity)))}
     */
    @Deprecated
    public DeviceMemory(Device device, long capacity, int alignment, long pageSize, long baseAddress) {
        this(device, caching(device, capacity, alignment, baseAddress));
    }

    private static BlockAllocator caching(Device device, long capacity, int alignment, long baseAddress) {
        if (alignment <= 0 || Integer.bitCount(alignment) != 1 || alignment > CachingAllocator.MIN_BLOCK) {
            throw new IllegalArgumentException("device memory needs a power-of-two alignment of at most "
                    + CachingAllocator.MIN_BLOCK + "; got " + alignment);
        }
        return new CachingAllocator(device, new EmulatedHeap(baseAddress, capacity));
    }

    /** Returns the device. */
    public Device device() {
        return device;
    }

    /** Returns the device's allocator. */
    public BlockAllocator allocator() {
        return allocator;
    }

    /** Returns the device's capacity in bytes. */
    public long capacity() {
        return allocator.capacity();
    }

    /** Returns the bytes not handed out to tensors (the device's capacity less what is allocated). */
    public long free() {
        return capacity() - stats().values().getOrDefault("allocated_bytes.all.current", 0L);
    }

    /** Allocates a zero-filled storage for {@code n} elements on the default stream; see {@link #allocate(int, DType, int)}. */
    public Storage allocate(DType dtype, int n) {
        return allocate(0, dtype, n);
    }

    /**
     * Allocates a zero-filled storage for {@code n} elements in device memory for work on a stream; the
     * storage's handle is its {@link DeviceBlock}.
     *
     * @throws DeviceOutOfMemoryError if the device has not enough memory even after a collection
     */
    public Storage allocate(int stream, DType dtype, int n) {
        long requested = (long) dtype.itemSize() * n;
        MemoryBlock block = allocator.tryAllocate(requested, stream);
        if (block == null) {
            block = reclaim(requested, stream);
        }
        MemoryBlock owned = block;
        try {
            // freed when the runtime releases the storage (its last tensor closed), or by the collector if never
            return Storage.create(device, dtype, n, new DeviceBlock(block), block.address(),
                    () -> allocator.free(owned));
        } catch (OutOfMemoryError e) {
            allocator.free(block);
            throw e;
        }
    }

    private MemoryBlock reclaim(long requested, int stream) {
        long deadline = System.nanoTime() + RECLAIM_NANOS;
        System.gc();
        while (true) {
            long seen = allocator.frees();
            MemoryBlock block = allocator.tryAllocate(requested, stream);
            long left = deadline - System.nanoTime();
            if (block != null) {
                return block;
            }
            try {
                if (left <= 0 || !allocator.awaitFree(seen, left)) {
                    return allocator.allocate(requested, stream);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return allocator.allocate(requested, stream);
            }
        }
    }

    /** Gives the device every cached segment no block uses, as torch's {@code empty_cache()}. */
    public void emptyCache() {
        allocator.emptyCache();
    }

    /** Resets the peaks to the current values. */
    public void resetPeakStats() {
        allocator.resetPeakStats();
    }

    /** Returns the counters under torch's {@code memory_stats()} names. */
    public MemoryStats stats() {
        return allocator.stats();
    }
}
