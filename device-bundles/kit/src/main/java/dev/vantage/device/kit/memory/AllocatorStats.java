package dev.vantage.device.kit.memory;

import java.util.Map;
import java.util.TreeMap;

/**
 * An allocator's counters, as torch's {@code DeviceStats}: for each statistic, for all blocks and for the small
 * and the large pool, the current value, its peak, the total ever added and the total ever removed; plus the
 * event counts. {@link #values()} names them as torch's {@code memory_stats()} does. Not thread-safe: an
 * allocator updates it under its own lock.
 */
public final class AllocatorStats {

    /** Client allocations (blocks handed out). */
    public static final int ALLOCATION = 0;
    /** Segments held from the device. */
    public static final int SEGMENT = 1;
    /** Active blocks: handed out, or freed while a stream still uses them. */
    public static final int ACTIVE = 2;
    /** Free blocks that are part of a split segment, so not releasable. */
    public static final int INACTIVE_SPLIT = 3;
    /** Bytes of blocks handed out. */
    public static final int ALLOCATED_BYTES = 4;
    /** Bytes held from the device. */
    public static final int RESERVED_BYTES = 5;
    /** Bytes of active blocks. */
    public static final int ACTIVE_BYTES = 6;
    /** Bytes of free blocks inside split segments. */
    public static final int INACTIVE_SPLIT_BYTES = 7;
    /** Bytes asked for by the allocations handed out, before rounding. */
    public static final int REQUESTED_BYTES = 8;

    private static final String[] NAMES = {"allocation", "segment", "active", "inactive_split", "allocated_bytes",
        "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes"};
    private static final String[] POOLS = {"all", "small_pool", "large_pool"};
    private static final String[] FIELDS = {"current", "peak", "allocated", "freed"};
    private static final int CURRENT = 0;
    private static final int PEAK = 1;
    private static final int ADDED = 2;
    private static final int REMOVED = 3;

    private final long[] stats = new long[NAMES.length * POOLS.length * FIELDS.length];
    private long allocRetries;
    private long ooms;
    private long deviceAllocs;
    private long deviceFrees;

    /**
     * Adds to a statistic, for all blocks and for the block's pool.
     *
     * @param stat one of the constants, such as {@link #ALLOCATED_BYTES}
     * @param small whether the block belongs to the small pool
     * @param amount a non-negative amount
     */
    public void increase(int stat, boolean small, long amount) {
        add(stat, 0, amount);
        add(stat, small ? 1 : 2, amount);
    }

    /** Removes from a statistic, for all blocks and for the block's pool; see {@link #increase}. */
    public void decrease(int stat, boolean small, long amount) {
        remove(stat, 0, amount);
        remove(stat, small ? 1 : 2, amount);
    }

    private void add(int stat, int pool, long amount) {
        int i = (stat * POOLS.length + pool) * FIELDS.length;
        long now = stats[i + CURRENT] + amount;
        stats[i + CURRENT] = now;
        stats[i + ADDED] += amount;
        if (now > stats[i + PEAK]) {
            stats[i + PEAK] = now;
        }
    }

    private void remove(int stat, int pool, long amount) {
        int i = (stat * POOLS.length + pool) * FIELDS.length;
        stats[i + CURRENT] -= amount;
        stats[i + REMOVED] += amount;
    }

    /** Returns a statistic's current value for all blocks. */
    public long current(int stat) {
        return stats[stat * POOLS.length * FIELDS.length + CURRENT];
    }

    /** Returns a statistic's current value for the small ({@code small}) or the large pool. */
    public long current(int stat, boolean small) {
        return stats[(stat * POOLS.length + (small ? 1 : 2)) * FIELDS.length + CURRENT];
    }

    /** Returns a statistic's peak for all blocks. */
    public long peak(int stat) {
        return stats[stat * POOLS.length * FIELDS.length + PEAK];
    }

    /** Counts an allocation that freed the cache and asked the device again. */
    public void allocRetry() {
        allocRetries++;
    }

    /** Counts an allocation that failed for lack of memory. */
    public void oom() {
        ooms++;
    }

    /** Counts a segment obtained from the device. */
    public void deviceAlloc() {
        deviceAllocs++;
    }

    /** Counts a segment given back to the device. */
    public void deviceFree() {
        deviceFrees++;
    }

    /** Sets every peak to its current value, as torch's {@code reset_peak_memory_stats}. */
    public void resetPeak() {
        for (int i = 0; i < stats.length; i += FIELDS.length) {
            stats[i + PEAK] = stats[i + CURRENT];
        }
    }

    /**
     * Sets the totals added and removed and the event counts to zero, as torch's
     * {@code reset_accumulated_memory_stats}.
     */
    public void resetAccumulated() {
        for (int i = 0; i < stats.length; i += FIELDS.length) {
            stats[i + ADDED] = 0;
            stats[i + REMOVED] = 0;
        }
        allocRetries = 0;
        ooms = 0;
        deviceAllocs = 0;
        deviceFrees = 0;
    }

    /**
     * Returns every counter under torch's {@code memory_stats()} key, sorted: {@code allocated_bytes.all.current}
     * and the other 107 statistic keys, {@code num_alloc_retries}, {@code num_ooms}, {@code num_sync_all_streams},
     * {@code num_device_alloc}, {@code num_device_free}, {@code max_split_size} (-1: blocks of any size are
     * split) and the {@code oversize_allocations} and {@code oversize_segments} counters (0: nothing is
     * oversize when no maximum split size is set).
     */
    public Map<String, Long> values() {
        Map<String, Long> v = new TreeMap<>();
        for (int s = 0; s < NAMES.length; s++) {
            for (int p = 0; p < POOLS.length; p++) {
                for (int f = 0; f < FIELDS.length; f++) {
                    v.put(NAMES[s] + "." + POOLS[p] + "." + FIELDS[f],
                            stats[(s * POOLS.length + p) * FIELDS.length + f]);
                }
            }
        }
        for (String f : FIELDS) {
            v.put("oversize_allocations." + f, 0L);
            v.put("oversize_segments." + f, 0L);
        }
        v.put("num_alloc_retries", allocRetries);
        v.put("num_ooms", ooms);
        v.put("num_sync_all_streams", 0L);
        v.put("num_device_alloc", deviceAllocs);
        v.put("num_device_free", deviceFrees);
        v.put("max_split_size", -1L);
        return v;
    }
}
