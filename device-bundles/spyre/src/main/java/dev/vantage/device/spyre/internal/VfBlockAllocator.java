package dev.vantage.device.spyre.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import dev.vantage.device.kit.memory.AbstractBlockAllocator;
import dev.vantage.device.kit.memory.AllocatorStats;
import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.DeviceOutOfMemoryError;
import dev.vantage.device.kit.memory.MemoryBlock;
import dev.vantage.device.kit.memory.MemoryHistory;
import dev.vantage.profiler.api.MemorySnapshot.Block;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;

/**
 * torch-spyre's VF-mode block allocator over a card's {@link VfSegmentTable}, kept on the device kit's counters
 * ({@link AllocatorStats}), history ({@link MemoryHistory}), snapshot and {@link DeviceOutOfMemoryError}, so that
 * Spyre memory reads as the caching allocator's does.
 *
 * <ul>
 * <li>Every segment of the table is reserved from the card when the allocator is created, at the card's
 * bring-up: {@code segment} and {@code reserved_bytes} are the table's from the start (history records their
 * {@code segment_alloc} only if it is on then). No segment is ever given back, so {@link #emptyCache()} does
 * nothing.</li>
 * <li>Sizes are rounded up to {@link SpyreCard#ALIGNMENT} bytes. A request goes to the segment with the most free
 * memory among those with a free block large enough (the lowest-numbered on a tie), and there to its free block
 * of lowest address that fits (first fit), split so that the rest stays free. A freed block merges with its free
 * neighbours. The largest block the allocator can hand out is therefore one segment.</li>
 * <li>One pool for every stream: a freed block serves any stream next, and nothing is cached per stream. A
 * handed-out or free block is counted under the small pool when at most {@link CachingAllocator#SMALL_SIZE}
 * bytes, as the caching allocator splits requests, else under the large pool; the segments are large.</li>
 * <li>The counters follow the caching allocator's accounting: {@code inactive_split} counts the free blocks
 * that are not a whole segment. {@link #limit(long)} caps the <em>allocated</em> bytes, not the reserved ones,
 * since those are the whole table from the start.</li>
 * <li>Every allocation and free is reported through {@link MemoryEvents} under the lock, with the block's rounded
 * size and the totals after it, in the order they happen. A request that fits nowhere fails with a
 * {@link DeviceOutOfMemoryError} whose free bytes are those of the segments not handed out (within the cap),
 * counted ({@code num_ooms}), recorded ({@code oom}) and reported to the profiler.</li>
 * </ul>
 *
 * <p>One lock per card, as the caching allocator has. Under it: a scan of the segments and of the chosen
 * segment's free blocks in address order, as torch-spyre scans its block set.
 */
final class VfBlockAllocator extends AbstractBlockAllocator {

    /** One reserved segment: its blocks, which cover it exactly, and an index of the free ones. */
    private static final class Segment {
        final int id;
        final long base;
        final long size;
        final TreeMap<Long, MemoryBlock> blocks = new TreeMap<>();
        final TreeMap<Long, MemoryBlock> free = new TreeMap<>();
        final TreeMap<Long, Integer> freeSizes = new TreeMap<>();
        long freeBytes;

        Segment(VfSegmentTable.Segment s) {
            this.id = s.id();
            this.base = s.base();
            this.size = s.size();
        }

        long largestFree() {
            return freeSizes.isEmpty() ? 0 : freeSizes.lastKey();
        }
    }

    private final long capacity;
    private final List<Segment> segments;
    private final TreeMap<Long, Segment> byBase = new TreeMap<>();

    /**
     * Creates a card's allocator and reserves every segment of its table.
     *
     * @param device the card, such as {@code spyre:0}
     * @param table the card's segments, each a multiple of {@link SpyreCard#ALIGNMENT} from an aligned base
     */
    VfBlockAllocator(Device device, VfSegmentTable table) {
        super(Objects.requireNonNull(device, "device"));
        List<Segment> list = new ArrayList<>();
        long total = 0;
        for (VfSegmentTable.Segment t : table.segments()) {
            Segment s = new Segment(t);
            list.add(s);
            byBase.put(s.base, s);
            total += s.size;
            stats.increase(AllocatorStats.SEGMENT, false, 1);
            stats.increase(AllocatorStats.RESERVED_BYTES, false, s.size);
            stats.deviceAlloc();
            history.record("segment_alloc", s.base, s.size, 0, 0, List.of());
            addFree(s, s.base, s.size);
        }
        this.segments = List.copyOf(list);
        this.capacity = total;
    }

    /** Rounds a request up to a multiple of {@link SpyreCard#ALIGNMENT}, at least one. */
    static long roundSize(long bytes) {
        long unit = SpyreCard.ALIGNMENT;
        return bytes <= unit ? unit : unit * ((bytes + unit - 1) / unit);
    }

    private static boolean small(long size) {
        return size <= CachingAllocator.SMALL_SIZE;
    }

    /** Returns the bytes of the card's segments, all reserved. */
    @Override
    public long capacity() {
        return capacity;
    }

    /** Returns the bytes not handed out, within the cap. */
    @Override
    protected long deviceFree() {
        long allocated = stats.current(AllocatorStats.ALLOCATED_BYTES);
        long free = capacity - allocated;
        return limit > 0 ? Math.min(free, Math.max(0, limit - allocated)) : free;
    }

    @Override
    protected MemoryBlock take(long bytes, int stream) {
        long size = bytes > capacity ? Long.MAX_VALUE : roundSize(bytes);
        if (limit > 0 && size > limit - stats.current(AllocatorStats.ALLOCATED_BYTES)) {
            return null;
        }
        Segment chosen = null;
        for (Segment s : segments) {
            if (s.largestFree() >= size && (chosen == null || s.freeBytes > chosen.freeBytes)) {
                chosen = s;
            }
        }
        if (chosen == null) {
            return null;
        }
        MemoryBlock fit = null;
        for (MemoryBlock f : chosen.free.values()) {
            if (f.size() >= size) {
                fit = f;
                break;
            }
        }
        removeFree(chosen, fit);
        boolean small = small(size);
        MemoryBlock block = new MemoryBlock(fit.address(), size, stream, small);
        chosen.blocks.put(block.address(), block);
        if (fit.size() > size) {
            addFree(chosen, fit.address() + size, fit.size() - size);
        }
        handOut(block, bytes);
        return block;
    }

    /** Adds a free block; one that is not its whole segment is an inactive split. */
    private void addFree(Segment s, long address, long size) {
        MemoryBlock b = new MemoryBlock(address, size, 0, small(size));
        s.blocks.put(address, b);
        s.free.put(address, b);
        s.freeSizes.merge(size, 1, Integer::sum);
        s.freeBytes += size;
        if (size != s.size) {
            stats.increase(AllocatorStats.INACTIVE_SPLIT, b.small(), 1);
            stats.increase(AllocatorStats.INACTIVE_SPLIT_BYTES, b.small(), size);
        }
    }

    private void removeFree(Segment s, MemoryBlock b) {
        s.blocks.remove(b.address());
        s.free.remove(b.address());
        s.freeSizes.computeIfPresent(b.size(), (k, n) -> n == 1 ? null : n - 1);
        s.freeBytes -= b.size();
        if (b.size() != s.size) {
            stats.decrease(AllocatorStats.INACTIVE_SPLIT, b.small(), 1);
            stats.decrease(AllocatorStats.INACTIVE_SPLIT_BYTES, b.small(), b.size());
        }
    }

    /**
     * Takes a block back and merges it with its free neighbours.
     *
     * @throws IllegalStateException if the block is not handed out by this allocator now
     */
    @Override
    public synchronized void free(MemoryBlock block) {
        Objects.requireNonNull(block, "block");
        Map.Entry<Long, Segment> e = byBase.floorEntry(block.address());
        Segment s = e == null ? null : e.getValue();
        if (s == null || !block.allocated() || s.blocks.get(block.address()) != block) {
            throw new IllegalStateException(device + " did not hand out " + block + ", or it was freed already");
        }
        long address = block.address();
        long size = block.size();
        takeBack(block);
        s.blocks.remove(address);
        long start = address;
        long length = size;
        Map.Entry<Long, MemoryBlock> before = s.blocks.lowerEntry(address);
        if (before != null && !before.getValue().allocated()) {
            removeFree(s, before.getValue());
            start = before.getKey();
            length += before.getValue().size();
        }
        MemoryBlock after = s.blocks.get(address + size);
        if (after != null && !after.allocated()) {
            removeFree(s, after);
            length += after.size();
        }
        addFree(s, start, length);
    }

    /** Does nothing: the VF segments are reserved for the card's lifetime and free blocks are not cached. */
    @Override
    public void emptyCache() {
    }

    /** Returns every segment, in address order, with its blocks, and the recorded history; segments are large. */
    @Override
    public synchronized MemorySnapshot snapshot() {
        List<MemorySnapshot.Segment> out = new ArrayList<>(segments.size());
        for (Segment s : segments) {
            List<Block> blocks = new ArrayList<>(s.blocks.size());
            long allocated = 0;
            long requested = 0;
            for (MemoryBlock b : s.blocks.values()) {
                blocks.add(new Block(b.address(), b.size(), b.requested(),
                        b.allocated() ? MemorySnapshot.ACTIVE_ALLOCATED : MemorySnapshot.INACTIVE, b.frames()));
                if (b.allocated()) {
                    allocated += b.size();
                    requested += b.requested();
                }
            }
            out.add(new MemorySnapshot.Segment(device.index(), s.base, s.size, allocated, allocated, requested, 0,
                    "large", blocks));
        }
        return snapshotOf(out);
    }

    /**
     * Caps the bytes handed out, 0 or less removing the cap. Unlike the caching allocator's cap, which bounds the
     * reserved bytes, it bounds the allocated ones: the segments are all reserved from the start. A cap below
     * what is handed out now takes nothing back; it fails the next requests until enough is freed.
     */
    @Override
    public synchronized void limit(long bytes) {
        super.limit(bytes);
    }

    /**
     * Checks the allocator's invariants and returns the first one broken, or null: every segment's blocks cover
     * it exactly, are aligned, and no two neighbours are both free; the free-block index holds exactly the free
     * blocks; every handed-out block is at least its request; the counters, for all blocks and per pool, equal
     * the sums over the blocks; what is allocated is at most what is reserved, and that the capacity. For tests.
     */
    synchronized String checkInvariants() {
        long[][] sums = new long[AllocatorStats.REQUESTED_BYTES + 1][2];
        for (Segment s : segments) {
            long end = s.base;
            long freeBytes = 0;
            int freeCount = 0;
            TreeMap<Long, Integer> sizes = new TreeMap<>();
            MemoryBlock prev = null;
            for (Map.Entry<Long, MemoryBlock> e : s.blocks.entrySet()) {
                MemoryBlock b = e.getValue();
                if (b.address() != e.getKey() || b.address() != end) {
                    return b + " does not follow its neighbour in segment " + s.id;
                }
                if (b.address() % SpyreCard.ALIGNMENT != 0 || b.size() <= 0) {
                    return b + " is not an aligned, non-empty block";
                }
                if (prev != null && !prev.allocated() && !b.allocated()) {
                    return prev + " and " + b + " are both free and were not merged";
                }
                if (b.small() != small(b.size())) {
                    return b + " is counted in the wrong pool";
                }
                int pool = b.small() ? 0 : 1;
                if (b.allocated()) {
                    if (s.free.containsKey(b.address())) {
                        return b + " is handed out and indexed as free";
                    }
                    if (b.size() % SpyreCard.ALIGNMENT != 0 || b.requested() > b.size()) {
                        return b + " is not its request rounded up";
                    }
                    sums[AllocatorStats.ALLOCATION][pool]++;
                    sums[AllocatorStats.ALLOCATED_BYTES][pool] += b.size();
                    sums[AllocatorStats.REQUESTED_BYTES][pool] += b.requested();
                } else {
                    if (s.free.get(b.address()) != b) {
                        return b + " is free but not indexed";
                    }
                    freeBytes += b.size();
                    freeCount++;
                    sizes.merge(b.size(), 1, Integer::sum);
                    if (b.size() != s.size) {
                        sums[AllocatorStats.INACTIVE_SPLIT][pool]++;
                        sums[AllocatorStats.INACTIVE_SPLIT_BYTES][pool] += b.size();
                    }
                }
                end = b.address() + b.size();
                prev = b;
            }
            if (end != s.base + s.size) {
                return "the blocks of segment " + s.id + " end at 0x" + Long.toHexString(end) + ", not at 0x"
                        + Long.toHexString(s.base + s.size);
            }
            if (freeCount != s.free.size() || freeBytes != s.freeBytes || !sizes.equals(s.freeSizes)) {
                return "segment " + s.id + " indexes " + s.free.size() + " free blocks of " + s.freeBytes
                        + " bytes; it has " + freeCount + " of " + freeBytes;
            }
            sums[AllocatorStats.SEGMENT][1]++;
            sums[AllocatorStats.RESERVED_BYTES][1] += s.size;
        }
        for (int pool = 0; pool < 2; pool++) {
            sums[AllocatorStats.ACTIVE][pool] = sums[AllocatorStats.ALLOCATION][pool];
            sums[AllocatorStats.ACTIVE_BYTES][pool] = sums[AllocatorStats.ALLOCATED_BYTES][pool];
        }
        for (int stat = 0; stat < sums.length; stat++) {
            long all = sums[stat][0] + sums[stat][1];
            if (stats.current(stat) != all || stats.current(stat, true) != sums[stat][0]
                    || stats.current(stat, false) != sums[stat][1]) {
                return "counter " + stat + " is " + stats.current(stat) + " (small " + stats.current(stat, true)
                        + ", large " + stats.current(stat, false) + "), the blocks sum to " + all + " (small "
                        + sums[stat][0] + ", large " + sums[stat][1] + ")";
            }
        }
        long allocated = stats.current(AllocatorStats.ALLOCATED_BYTES);
        long reserved = stats.current(AllocatorStats.RESERVED_BYTES);
        if (allocated > reserved || reserved != capacity) {
            return allocated + " bytes allocated, " + reserved + " reserved, of " + capacity;
        }
        return null;
    }
}
