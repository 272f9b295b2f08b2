package dev.vantage.device.kit.memory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.vantage.profiler.api.MemorySnapshot.Block;
import dev.vantage.profiler.api.MemorySnapshot.Segment;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;

/**
 * PyTorch's caching allocator over a {@link DeviceHeap}, one per device.
 *
 * <ul>
 * <li>Sizes are rounded up to multiples of 512 bytes. Requests of at most 1 MiB come from the small pool, whose
 * segments are 2 MiB; larger ones from the large pool, whose segments are 20 MiB for requests under 10 MiB and the
 * request rounded up to 2 MiB otherwise.</li>
 * <li>A request takes the smallest free block of its pool and stream that fits, split when the rest is worth
 * keeping (at least 512 bytes in the small pool, more than 1 MiB in the large one); only when none fits is a
 * segment asked of the device.</li>
 * <li>A freed block merges with its free neighbours and stays cached for its stream; the device gets segments
 * back only from {@link #emptyCache()}, or when a request finds the device full: then every unused segment is
 * given back and the device asked once more ({@code num_alloc_retries}). If that fails too the request fails
 * with a {@link DeviceOutOfMemoryError} ({@code num_ooms}), an {@code oom} history entry and an
 * {@code [OutOfMemory]} profiler event.</li>
 * <li>Every allocation and free is reported through {@link MemoryEvents} with the block's rounded size and the
 * totals after it, in the order they happen, so the running sum of the reports is the allocated total.</li>
 * </ul>
 *
 * <p>One lock per device, as torch's allocator has one mutex per device; the work under it is a tree lookup and a
 * few counters.
 */
public final class CachingAllocator extends AbstractBlockAllocator {

    /** Every block is a multiple of this many bytes (torch's {@code kMinBlockSize}). */
    public static final long MIN_BLOCK = 512;
    /** The largest request served from the small pool (torch's {@code kSmallSize}). */
    public static final long SMALL_SIZE = 1L << 20;
    /** The size of a small-pool segment (torch's {@code kSmallBuffer}). */
    public static final long SMALL_BUFFER = 2L << 20;
    /** The size of a large-pool segment for requests under {@link #MIN_LARGE_ALLOC} (torch's {@code kLargeBuffer}). */
    public static final long LARGE_BUFFER = 20L << 20;
    /** Requests from this size on get a segment of their own size (torch's {@code kMinLargeAlloc}). */
    public static final long MIN_LARGE_ALLOC = 10L << 20;
    /** Large segments are rounded up to this (torch's {@code kRoundLarge}). */
    public static final long ROUND_LARGE = 2L << 20;

    private static final Comparator<MemoryBlock> ORDER = (a, b) -> {
        int c = Integer.compare(a.stream, b.stream);
        if (c != 0) {
            return c;
        }
        c = Long.compare(a.size, b.size);
        return c != 0 ? c : Long.compare(a.address, b.address);
    };

    private final DeviceHeap heap;
    private final TreeSet<MemoryBlock> smallPool = new TreeSet<>(ORDER);
    private final TreeSet<MemoryBlock> largePool = new TreeSet<>(ORDER);
    private final TreeMap<Long, MemoryBlock> segments = new TreeMap<>();
    private MemoryBlock[] probes = new MemoryBlock[0];
    /** Merged-away blocks no caller ever held, for the next splits. */
    private final java.util.ArrayDeque<MemoryBlock> spares = new java.util.ArrayDeque<>();
    private static final int SPARES = 64;

    /**
     * Creates the allocator of a device.
     *
     * @param device the device
     * @param heap the device's memory
     */
    public CachingAllocator(Device device, DeviceHeap heap) {
        super(device);
        this.heap = heap;
    }

    /** Rounds a request as torch does: up to a multiple of {@link #MIN_BLOCK}, at least one. */
    public static long roundSize(long bytes) {
        return bytes < MIN_BLOCK ? MIN_BLOCK : MIN_BLOCK * ((bytes + MIN_BLOCK - 1) / MIN_BLOCK);
    }

    /** Returns the size of the segment a rounded request needs when no cached block fits. */
    public static long segmentSize(long size) {
        if (size <= SMALL_SIZE) {
            return SMALL_BUFFER;
        }
        if (size < MIN_LARGE_ALLOC) {
            return LARGE_BUFFER;
        }
        return ROUND_LARGE * ((size + ROUND_LARGE - 1) / ROUND_LARGE);
    }

    @Override
    public long capacity() {
        return heap.capacity();
    }

    /** The segment a request needs when no cached block fits: 2 MiB for up to 1 MiB, as torch's. */
    @Override
    protected long deviceRequest(long bytes) {
        return segmentSize(roundSize(bytes));
    }

    @Override
    protected long deviceFree() {
        long free = heap.capacity() - heap.used();
        if (limit > 0) {
            free = Math.min(free, Math.max(0, limit - stats.current(AllocatorStats.RESERVED_BYTES)));
        }
        return free;
    }

    @Override
    protected MemoryBlock take(long bytes, int stream) {
        if (stream >= probes.length) {
            MemoryBlock[] more = java.util.Arrays.copyOf(probes, stream + 1);
            for (int i = probes.length; i <= stream; i++) {
                more[i] = new MemoryBlock(Long.MIN_VALUE, 0, i, false);
            }
            probes = more;
        }
        long size = roundSize(bytes);
        boolean small = size <= SMALL_SIZE;
        TreeSet<MemoryBlock> pool = small ? smallPool : largePool;
        MemoryBlock probe = probes[stream];
        probe.size = size;
        MemoryBlock block = pool.ceiling(probe);
        if (block != null && block.stream == stream) {
            pool.remove(block);
        } else {
            long segment = segmentSize(size);
            block = newSegment(segment, stream, small, false);
            if (block == null) {
                releaseCache();
                block = newSegment(segment, stream, small, true);
                if (block == null) {
                    return null;
                }
            }
        }
        boolean wasSplit = block.prev != null || block.next != null;
        long remaining = block.size - size;
        if (small ? remaining >= MIN_BLOCK : remaining > SMALL_SIZE) {
            MemoryBlock rest = spares.poll();
            if (rest == null) {
                rest = new MemoryBlock(block.address + size, remaining, stream, small);
            } else {
                rest.reuse(block.address + size, remaining, stream, small);
            }
            rest.head = block.head;
            rest.prev = block;
            rest.next = block.next;
            if (block.next != null) {
                block.next.prev = rest;
            }
            block.next = rest;
            block.size = size;
            pool.add(rest);
            if (wasSplit) {
                stats.decrease(AllocatorStats.INACTIVE_SPLIT_BYTES, small, size);
            } else {
                stats.increase(AllocatorStats.INACTIVE_SPLIT_BYTES, small, remaining);
                stats.increase(AllocatorStats.INACTIVE_SPLIT, small, 1);
            }
        } else if (wasSplit) {
            stats.decrease(AllocatorStats.INACTIVE_SPLIT_BYTES, small, block.size);
            stats.decrease(AllocatorStats.INACTIVE_SPLIT, small, 1);
        }
        handOut(block, bytes);
        return block;
    }

    private MemoryBlock newSegment(long size, int stream, boolean small, boolean retry) {
        if (retry) {
            stats.allocRetry();
        }
        if (limit > 0 && stats.current(AllocatorStats.RESERVED_BYTES) + size > limit) {
            return null;
        }
        long address = heap.malloc(size);
        if (address < 0) {
            return null;
        }
        MemoryBlock block = new MemoryBlock(address, size, stream, small);
        block.head = block;
        segments.put(address, block);
        stats.increase(AllocatorStats.SEGMENT, small, 1);
        stats.increase(AllocatorStats.RESERVED_BYTES, small, size);
        stats.deviceAlloc();
        if (history.enabled()) {
            history.record("segment_alloc", address, size, stream, 0, history.frames());
        }
        return block;
    }

    @Override
    public synchronized void free(MemoryBlock block) {
        if (!block.allocated || block.head == null || segments.get(block.head.address) != block.head) {
            throw new IllegalStateException(device + " did not hand out " + block + ", or it was freed already");
        }
        boolean small = block.small;
        takeBack(block);
        TreeSet<MemoryBlock> pool = small ? smallPool : largePool;
        long splitBlocks = 0;
        long splitBytes = 0;
        MemoryBlock next = block.next;
        if (next != null && !next.allocated) {
            pool.remove(next);
            if (!next.everHandedOut && spares.size() < SPARES) {
                // a split's remainder no caller ever held: the next split takes it instead of a new object
                spares.push(next);
            }
            splitBlocks--;
            splitBytes -= next.size;
            block.size += next.size;
            block.next = next.next;
            if (next.next != null) {
                next.next.prev = block;
            }
        }
        MemoryBlock prev = block.prev;
        if (prev != null && !prev.allocated) {
            pool.remove(prev);
            splitBlocks--;
            splitBytes -= prev.size;
            prev.size += block.size;
            prev.next = block.next;
            if (block.next != null) {
                block.next.prev = prev;
            }
            block = prev;
        }
        pool.add(block);
        if (block.prev != null || block.next != null) {
            splitBlocks++;
            splitBytes += block.size;
        }
        if (splitBlocks > 0) {
            stats.increase(AllocatorStats.INACTIVE_SPLIT, small, splitBlocks);
        } else if (splitBlocks < 0) {
            stats.decrease(AllocatorStats.INACTIVE_SPLIT, small, -splitBlocks);
        }
        if (splitBytes > 0) {
            stats.increase(AllocatorStats.INACTIVE_SPLIT_BYTES, small, splitBytes);
        } else if (splitBytes < 0) {
            stats.decrease(AllocatorStats.INACTIVE_SPLIT_BYTES, small, -splitBytes);
        }
    }

    @Override
    public synchronized void emptyCache() {
        releaseCache();
    }

    private void releaseCache() {
        release(smallPool);
        release(largePool);
    }

    private void release(TreeSet<MemoryBlock> pool) {
        List<MemoryBlock> whole = new ArrayList<>();
        for (MemoryBlock b : pool) {
            if (b.prev == null && b.next == null) {
                whole.add(b);
            }
        }
        for (MemoryBlock b : whole) {
            pool.remove(b);
            segments.remove(b.address);
            heap.free(b.address, b.size);
            stats.decrease(AllocatorStats.SEGMENT, b.small, 1);
            stats.decrease(AllocatorStats.RESERVED_BYTES, b.small, b.size);
            stats.deviceFree();
            if (history.enabled()) {
                history.record("segment_free", b.address, b.size, b.stream, 0, history.frames());
            }
        }
    }

    @Override
    public synchronized MemorySnapshot snapshot() {
        List<Segment> out = new ArrayList<>(segments.size());
        for (MemoryBlock head : segments.values()) {
            List<Block> blocks = new ArrayList<>();
            long total = 0;
            long allocated = 0;
            long requested = 0;
            for (MemoryBlock b = head; b != null; b = b.next) {
                blocks.add(new Block(b.address, b.size, b.requested,
                        b.allocated ? MemorySnapshot.ACTIVE_ALLOCATED : MemorySnapshot.INACTIVE, b.frames));
                total += b.size;
                if (b.allocated) {
                    allocated += b.size;
                    requested += b.requested;
                }
            }
            out.add(new Segment(device.index(), head.address, total, allocated, allocated, requested, head.stream,
                    head.small ? "small" : "large", blocks));
        }
        return snapshotOf(out);
    }

    /**
     * Checks the allocator's invariants and returns the first one broken, or null: every segment's blocks cover
     * it exactly and are linked both ways; no two neighbouring blocks are both free; every free block, and no
     * handed-out one, is cached in its pool; the counters equal the sums over the blocks; what is allocated is
     * at most what is reserved, and that at most the device's capacity and the cap. For tests.
     */
    public synchronized String checkInvariants() {
        long allocated = 0;
        long reserved = 0;
        long requested = 0;
        long blocks = 0;
        long splitFree = 0;
        long splitFreeBytes = 0;
        int cached = 0;
        for (Map.Entry<Long, MemoryBlock> e : segments.entrySet()) {
            MemoryBlock head = e.getValue();
            if (head.prev != null || head.address != e.getKey()) {
                return "segment at 0x" + Long.toHexString(e.getKey()) + " does not start with its head block";
            }
            long end = head.address;
            for (MemoryBlock b = head; b != null; b = b.next) {
                if (b.address != end) {
                    return b + " does not follow its neighbour";
                }
                if (b.next != null && b.next.prev != b) {
                    return b + " is not linked back from its next block";
                }
                if (b.next != null && !b.allocated && !b.next.allocated) {
                    return b + " and " + b.next + " are both free and were not merged";
                }
                if (b.stream != head.stream || b.small != head.small) {
                    return b + " is not of its segment's stream and pool";
                }
                boolean inPool = (b.small ? smallPool : largePool).contains(b);
                if (b.allocated == inPool) {
                    return b + (b.allocated ? " is handed out and cached" : " is free but not cached");
                }
                if (b.allocated) {
                    allocated += b.size;
                    requested += b.requested;
                    blocks++;
                } else {
                    cached++;
                    if (head.next != null) {
                        splitFree++;
                        splitFreeBytes += b.size;
                    }
                }
                end = b.address + b.size;
                reserved += b.size;
            }
        }
        if (cached != smallPool.size() + largePool.size()) {
            return "the pools hold " + (smallPool.size() + largePool.size()) + " blocks, the segments " + cached
                    + " free ones";
        }
        long[][] expected = {{AllocatorStats.ALLOCATED_BYTES, allocated}, {AllocatorStats.RESERVED_BYTES, reserved},
            {AllocatorStats.REQUESTED_BYTES, requested}, {AllocatorStats.ALLOCATION, blocks},
            {AllocatorStats.SEGMENT, segments.size()}, {AllocatorStats.INACTIVE_SPLIT, splitFree},
            {AllocatorStats.INACTIVE_SPLIT_BYTES, splitFreeBytes}, {AllocatorStats.ACTIVE_BYTES, allocated}};
        for (long[] x : expected) {
            if (stats.current((int) x[0]) != x[1]) {
                return "counter " + x[0] + " is " + stats.current((int) x[0]) + ", the blocks sum to " + x[1];
            }
        }
        if (reserved > heap.capacity() || (limit > 0 && reserved > limit) || heap.used() != reserved) {
            return reserved + " bytes reserved, the device has " + heap.capacity() + " and hands out "
                    + heap.used() + (limit > 0 ? ", cap " + limit : "");
        }
        return null;
    }
}
