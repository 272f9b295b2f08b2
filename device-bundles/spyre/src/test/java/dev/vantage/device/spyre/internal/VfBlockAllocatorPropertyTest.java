package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.device.kit.memory.DeviceOutOfMemoryError;
import dev.vantage.device.kit.memory.MemoryBlock;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.tensor.Device;

/**
 * Random allocations, frees and cache flushes, for a fixed list of seeds, keep the VF allocator consistent: its own
 * invariants hold, no byte is handed out twice, the counters are the sums over the live blocks, every allocation
 * lands where the VF policy puts it (and fails only when no free block fits), the reports to the profiler add up in
 * order, and freed memory is handed out again. The first 1,500 operations of a seed run on one thread and are
 * checked after each; the last 500 run on four threads at once and are checked at the end.
 */
public class VfBlockAllocatorPropertyTest {

    private static final long[] SEEDS = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584,
        4181, 6765, 10946};
    private static final int OPERATIONS = 2_000;
    private static final int THREADS = 4;
    private static final int SINGLE_THREADED = 1_500;
    private static final long CAPACITY = 64L << 20;
    /** An index no driver of the other tests has, whose cleaners may still report frees of their devices. */
    private static final int INDEX = 5;
    private static final Device SPYRE = new Device("spyre", INDEX);

    private final VfSegmentTable table = VfBlockAllocatorTest.table(CAPACITY);
    private final long segment = table.segmentSize();
    private Object token;
    private Reports reports;

    /** Checks the reports to the profiler as they arrive; they arrive under the allocator's lock. */
    private static final class Reports implements MemorySink {
        long running;
        long count;
        String broken;

        @Override
        public void allocated(String type, int index, long address, long bytes, long allocated, long reserved) {
            if (index != INDEX || !type.equals("spyre")) {
                return;
            }
            running += bytes;
            count++;
            if (broken == null && (running != allocated || reserved != CAPACITY)) {
                broken = "report " + count + " of " + bytes + " bytes at 0x" + Long.toHexString(address)
                        + " says " + allocated + " allocated, " + reserved + " reserved; the reports sum to "
                        + running;
            }
        }

        @Override
        public void outOfMemory(String type, int index, long bytes, long allocated, long reserved) {
            if (index == INDEX && broken == null && allocated != running) {
                broken = "out-of-memory report says " + allocated + " allocated; the reports sum to " + running;
            }
        }
    }

    @Before
    public void listen() {
        token = MemoryEvents.claim();
    }

    @After
    public void release() {
        MemoryEvents.release(token);
    }

    @Test
    public void randomOperationsKeepEveryBlockApartAndTheCountersExact() throws Exception {
        for (long seed : SEEDS) {
            reports = new Reports();
            MemoryEvents.publish(token, reports);
            run(seed);
        }
    }

    private void run(long seed) throws Exception {
        VfBlockAllocator a = new VfBlockAllocator(SPYRE, table);
        Random random = new Random(seed);
        List<MemoryBlock> live = new ArrayList<>();
        long first = -1;
        for (int op = 0; op < SINGLE_THREADED; op++) {
            String where = "seed " + seed + ", operation " + op;
            int kind = random.nextInt(20);
            if (kind < 11 || live.isEmpty()) {
                MemoryBlock b = allocateChecked(a, random, where);
                if (b != null) {
                    live.add(b);
                    first = first < 0 ? b.address() : first;
                }
            } else if (kind < 19) {
                a.free(live.remove(random.nextInt(live.size())));
            } else {
                a.emptyCache();
            }
            check(a, live, where);
        }

        List<List<MemoryBlock>> perThread = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            List<MemoryBlock> mine = new ArrayList<>();
            perThread.add(mine);
            Random r = new Random(seed * 1_000_003 + t);
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                    for (int op = 0; op < (OPERATIONS - SINGLE_THREADED) / THREADS; op++) {
                        int kind = r.nextInt(20);
                        if (kind < 11 || mine.isEmpty()) {
                            MemoryBlock b = a.tryAllocate(size(r), r.nextInt(4));
                            if (b != null) {
                                mine.add(b);
                            }
                        } else if (kind < 19) {
                            a.free(mine.remove(r.nextInt(mine.size())));
                        } else {
                            a.emptyCache();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "vf-property-" + t);
            threads.add(thread);
            thread.start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertTrue("seed " + seed + ": " + failures, failures.isEmpty());
        for (List<MemoryBlock> mine : perThread) {
            live.addAll(mine);
        }
        check(a, live, "seed " + seed + ", after the threads");

        for (MemoryBlock b : live) {
            a.free(b);
        }
        live.clear();
        check(a, live, "seed " + seed + ", all freed");
        assertEquals(0, stat(a, "inactive_split.all.current"));
        MemoryBlock again = a.allocate(size(random), 0);
        long base = segmentOf(first).base();
        assertTrue("seed " + seed + ": after freeing everything 0x" + Long.toHexString(again.address())
                + " is outside the first segment used, from 0x" + Long.toHexString(base),
                again.address() >= base && again.address() < base + segmentOf(first).size());
        assertEquals("seed " + seed + ": the first fit of a whole free segment is its start", first,
                again.address());
        a.free(again);
        assertNull(reports.broken, reports.broken);
        assertEquals("every allocation and free was reported", 0, reports.running);
    }

    /** Returns a size from 1 byte to a third of a segment, a small one three times in ten. */
    private long size(Random r) {
        return r.nextInt(10) < 3 ? 1 + r.nextInt(4096) : 1 + (long) (r.nextDouble() * (segment / 3));
    }

    private VfSegmentTable.Segment segmentOf(long address) {
        for (VfSegmentTable.Segment s : table.segments()) {
            if (address >= s.base() && address < s.base() + s.size()) {
                return s;
            }
        }
        throw new AssertionError("0x" + Long.toHexString(address) + " is in no segment");
    }

    /**
     * Allocates, sometimes through {@code allocate} (expecting its error when nothing fits), and checks the
     * result against the VF policy worked out from a snapshot taken just before.
     */
    private MemoryBlock allocateChecked(VfBlockAllocator a, Random random, String where) {
        long bytes = size(random);
        long size = VfBlockAllocator.roundSize(bytes);
        long expected = expectedAddress(a.snapshot(), size);
        long ooms = stat(a, "num_ooms");
        MemoryBlock b;
        if (random.nextBoolean()) {
            b = a.tryAllocate(bytes, random.nextInt(4));
        } else {
            try {
                b = a.allocate(bytes, random.nextInt(4));
            } catch (DeviceOutOfMemoryError e) {
                assertEquals(where, ooms + 1, stat(a, "num_ooms"));
                assertTrue(where + ": " + e.getMessage(), e.getMessage().contains("(" + bytes + " bytes)"));
                b = null;
            }
        }
        if (b == null) {
            assertEquals(where + ": " + bytes + " bytes failed though a free block fits", -1, expected);
            return null;
        }
        assertEquals(where + ": " + bytes + " bytes went to the wrong place", expected, b.address());
        assertEquals(where, size, b.size());
        assertEquals(where, bytes, b.requested());
        return b;
    }

    /** The segment with the most free memory among those with a free block that fits, its first such block. */
    private static long expectedAddress(MemorySnapshot snapshot, long size) {
        long best = -1;
        long bestFree = -1;
        for (MemorySnapshot.Segment s : snapshot.segments()) {
            long free = s.totalSize() - s.allocatedSize();
            if (free <= bestFree) {
                continue;
            }
            for (MemorySnapshot.Block b : s.blocks()) {
                if (b.state().equals(MemorySnapshot.INACTIVE) && b.size() >= size) {
                    best = b.address();
                    bestFree = free;
                    break;
                }
            }
        }
        return best;
    }

    private void check(VfBlockAllocator a, Collection<MemoryBlock> live, String where) {
        String broken = a.checkInvariants();
        if (broken != null) {
            fail(where + ": " + broken);
        }
        Map<String, Long> v = a.stats().values();
        long allocated = v.get("allocated_bytes.all.current");
        long reserved = v.get("reserved_bytes.all.current");
        assertTrue(where + ": " + allocated + " allocated, " + reserved + " reserved of " + CAPACITY,
                allocated <= reserved && reserved <= CAPACITY);
        assertEquals(where, CAPACITY, reserved);
        TreeMap<Long, MemoryBlock> byAddress = new TreeMap<>();
        long sum = 0;
        long requested = 0;
        for (MemoryBlock b : live) {
            MemoryBlock same = byAddress.put(b.address(), b);
            if (same != null) {
                fail(where + ": " + b + " and " + same + " were both handed out");
            }
            assertTrue(where + ": " + b + " is not allocated", b.allocated());
            sum += b.size();
            requested += b.requested();
        }
        long end = table.base();
        for (MemoryBlock b : byAddress.values()) {
            if (b.address() < end) {
                fail(where + ": " + b + " overlaps the block before it, which ends at 0x" + Long.toHexString(end));
            }
            VfSegmentTable.Segment s = segmentOf(b.address());
            assertTrue(where + ": " + b + " crosses the end of segment " + s.id(),
                    b.address() + b.size() <= s.base() + s.size());
            end = b.address() + b.size();
        }
        assertEquals(where + ": allocated_bytes against the live blocks", sum, allocated);
        assertEquals(where + ": requested_bytes against the live blocks", requested,
                (long) v.get("requested_bytes.all.current"));
        assertEquals(where, live.size(), (long) v.get("allocation.all.current"));
    }

    private static long stat(VfBlockAllocator a, String key) {
        return a.stats().values().get(key);
    }
}
