package dev.vantage.device.kit.memory;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Test;

import dev.vantage.tensor.Device;

/**
 * Randomised sequences of allocations, frees and cache flushes on several streams, from one thread and from
 * several: after every step (or at the end, for the threaded runs) the allocator's invariants hold, allocated ≤
 * reserved ≤ capacity, the counters equal the live blocks, no byte is handed out twice, and freed memory is
 * reused. Each seed is named in the failure message, so a failure can be replayed.
 */
public class CachingAllocatorPropertyTest {

    private static final long MIB = 1L << 20;
    private static final long BASE = 0x7000_0000_0000L;
    private static final long CAPACITY = 96 * MIB;

    private static long size(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> 1 + r.nextInt(600);
            case 1 -> 1 + r.nextInt((int) MIB);
            case 2 -> MIB + r.nextInt((int) (9 * MIB));
            default -> 10 * MIB + r.nextInt((int) (14 * MIB));
        };
    }

    private static void checkLive(String seed, CachingAllocator a, List<MemoryBlock> live) {
        String broken = a.checkInvariants();
        assertNull(seed + ": " + broken, broken);
        Map<String, Long> v = a.stats().values();
        long allocated = v.get("allocated_bytes.all.current");
        long reserved = v.get("reserved_bytes.all.current");
        assertTrue(seed, allocated <= reserved && reserved <= CAPACITY);
        assertEquals(seed, live.stream().mapToLong(MemoryBlock::size).sum(), allocated);
        assertEquals(seed, live.stream().mapToLong(MemoryBlock::requested).sum(),
                (long) v.get("requested_bytes.all.current"));
        assertEquals(seed, live.size(), (long) v.get("allocation.all.current"));
        assertEquals(seed, allocated, v.get("allocated_bytes.small_pool.current")
                + v.get("allocated_bytes.large_pool.current"));
        TreeMap<Long, MemoryBlock> byAddress = new TreeMap<>();
        for (MemoryBlock b : live) {
            assertTrue(seed, b.size() >= b.requested() && b.size() % CachingAllocator.MIN_BLOCK == 0);
            assertTrue(seed, b.address() >= BASE && b.address() + b.size() <= BASE + CAPACITY);
            assertNull(seed + ": two live blocks at one address", byAddress.put(b.address(), b));
        }
        long end = Long.MIN_VALUE;
        for (MemoryBlock b : byAddress.values()) {
            assertTrue(seed + ": " + b + " overlaps the block before it", b.address() >= end);
            end = b.address() + b.size();
        }
    }

    private static boolean heapFragmented(CachingAllocator a) {
        // whole segments were given back; what the device holds free is split between the segments in use
        return a.stats().values().get("segment.all.current") > 1;
    }

    @Test
    public void randomSequencesOnOneThreadKeepEveryInvariant() {
        for (long seed = 1; seed <= 25; seed++) {
            String name = "seed " + seed;
            Random r = new Random(seed);
            CachingAllocator a = new CachingAllocator(new Device("npu", 0), new EmulatedHeap(BASE, CAPACITY));
            List<MemoryBlock> live = new ArrayList<>();
            for (int step = 0; step < 1500; step++) {
                int op = r.nextInt(100);
                if (op < 55) {
                    long retries = a.stats().values().get("num_alloc_retries");
                    long request = size(r);
                    MemoryBlock b = a.tryAllocate(request, r.nextInt(3));
                    if (b != null) {
                        live.add(b);
                    } else {
                        // refused only after giving the cache back and asking again, and only when the device is
                        // short of a segment that large
                        assertEquals(name, retries + 1, (long) a.stats().values().get("num_alloc_retries"));
                        assertTrue(name + ": " + request + " bytes refused", a.stats().values().get("reserved_bytes.all.current")
                                + CachingAllocator.segmentSize(CachingAllocator.roundSize(request)) > CAPACITY
                                || heapFragmented(a));
                    }
                } else if (op < 97 && !live.isEmpty()) {
                    a.free(live.remove(r.nextInt(live.size())));
                } else {
                    a.emptyCache();
                }
                checkLive(name + " step " + step, a, live);
            }
            for (MemoryBlock b : live) {
                a.free(b);
            }
            live.clear();
            checkLive(name, a, live);
            assertEquals(name, 0, (long) a.stats().values().get("inactive_split.all.current"));
            a.emptyCache();
            assertEquals(name, 0, (long) a.stats().values().get("reserved_bytes.all.current"));
        }
    }

    @Test
    public void freedMemoryIsReusedSoAddressesStayWithinTheDevice() {
        CachingAllocator a = new CachingAllocator(new Device("npu", 0), new EmulatedHeap(BASE, CAPACITY));
        Random r = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            // 20,000 x up to 24 MiB is far more than 96 MiB: only reuse keeps this going
            MemoryBlock b = a.allocate(size(r), i % 2);
            assertTrue(b.address() + b.size() <= BASE + CAPACITY);
            a.free(b);
            if (i % 1000 == 999) {
                a.emptyCache();
            }
        }
        assertTrue(a.stats().values().get("num_device_alloc") < 20_000 / 10);
        assertNull(a.checkInvariants());
    }

    @Test
    public void concurrentThreadsOnSeveralStreamsNeverShareABlock() throws InterruptedException {
        for (long seed = 100; seed < 106; seed++) {
            CachingAllocator a = new CachingAllocator(new Device("npu", 0), new EmulatedHeap(BASE, CAPACITY));
            int threads = 4;
            List<List<MemoryBlock>> kept = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<MemoryBlock> mine = new ArrayList<>();
                kept.add(mine);
                Random r = new Random(seed * 31 + t);
                int stream = t % 2;
                Thread w = new Thread(() -> {
                    try {
                        start.await();
                        for (int step = 0; step < 3000; step++) {
                            int op = r.nextInt(100);
                            if (op < 52) {
                                MemoryBlock b = a.tryAllocate(size(r) / 4, stream);
                                if (b != null) {
                                    mine.add(b);
                                }
                            } else if (op < 99 && !mine.isEmpty()) {
                                a.free(mine.remove(r.nextInt(mine.size())));
                            } else {
                                a.emptyCache();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                workers.add(w);
                w.start();
            }
            start.countDown();
            for (Thread w : workers) {
                w.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("seed " + seed, failure.get());
            }
            List<MemoryBlock> live = new ArrayList<>();
            kept.forEach(live::addAll);
            checkLive("seed " + seed, a, live);
            for (MemoryBlock b : live) {
                if (!b.allocated()) {
                    fail("seed " + seed + ": " + b + " was freed by another thread");
                }
            }
        }
    }
}
