package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/** The CPU backend as the host's allocator: what it counts and what it reports. */
public class CpuBackendMemoryTest {

    private final CpuBackend allocator = new CpuBackend();
    /** Allocator events as {address, bytes, total}; the cleaner adds frees from its own thread. */
    private final List<long[]> events = Collections.synchronizedList(new ArrayList<>());
    private Object token;
    private volatile long awaitedFree = Storage.NO_ADDRESS;
    private final CountDownLatch freed = new CountDownLatch(1);

    @Before
    public void listen() {
        token = MemoryEvents.claim();
        MemoryEvents.publish(token, new MemorySink() {
            @Override
            public void allocated(String deviceType, int deviceIndex, long address, long bytes,
                    long totalAllocated, long totalReserved) {
                events.add(new long[] {address, bytes, totalAllocated});
                if (bytes < 0 && address == awaitedFree) {
                    freed.countDown();
                }
            }

            @Override
            public void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated,
                    long totalReserved) {
            }
        });
    }

    @After
    public void release() {
        MemoryEvents.release(token);
        allocator.deactivate();
    }

    @Test
    public void countsAndReportsAllocations() {
        Storage a = allocator.allocate(Device.CPU, DType.FLOAT32, 100);
        Storage b = allocator.allocate(Device.CPU, DType.FLOAT32, 28);
        assertEquals(100, a.size());
        Map<String, Long> stats = allocator.stats().values();
        assertEquals(416 + 128, (long) stats.get("allocated_bytes.all.current"));
        assertEquals(416 + 128, (long) stats.get("allocated_bytes.all.peak"));
        assertEquals(2, (long) stats.get("allocation.all.current"));
        assertEquals(stats.get("allocated_bytes.all.current"), stats.get("reserved_bytes.all.current"));
        // only allocations: a collection may report frees of storages from earlier tests meanwhile
        List<long[]> allocations = new ArrayList<>();
        synchronized (events) {
            events.stream().filter(e -> e[1] > 0).forEach(allocations::add);
        }
        assertEquals(2, allocations.size());
        assertEquals(416, allocations.get(0)[1]);
        assertEquals(416 + 128, allocations.get(1)[2]);
        assertTrue(allocations.get(0)[0] != allocations.get(1)[0]);
        assertEquals(28, b.size());
    }

    @Test
    public void allocatesEveryDtypeZeroFilledAndCountsItsItemSize() {
        Storage longs = allocator.allocate(Device.CPU, DType.INT64, 10);
        Storage bools = allocator.allocate(Device.CPU, DType.BOOL, 10);
        assertEquals(DType.INT64, longs.dtype());
        assertEquals(DType.BOOL, bools.dtype());
        assertEquals(10, longs.longs().length);
        assertEquals(0L, longs.longs()[9]);
        assertEquals(false, bools.bools()[9]);
        // 16-byte header plus 8 bytes per long and 1 per bool
        assertEquals(96 + 26, (long) allocator.stats().values().get("allocated_bytes.all.allocated"));
        assertEquals(2, (long) allocator.stats().values().get("allocation.all.allocated"));
    }

    @Test
    public void freesABlockTheMomentItsStorageIsReleased() {
        Storage s = allocator.allocate(Device.CPU, DType.FLOAT32, 100);
        long address = s.address();
        s.release();
        Map<String, Long> stats = allocator.stats().values();
        assertEquals(0, (long) stats.get("allocated_bytes.all.current"));
        assertEquals(1, (long) stats.get("allocation.all.freed"));
        synchronized (events) {
            assertTrue(events.stream().anyMatch(e -> e[0] == address && e[1] == -416));
        }
    }

    /**
     * The property the trace relies on: whichever threads allocate and free, each report's total is the total of
     * the report before it plus its own bytes, in the order the reports arrive. Threads allocate, release, and drop
     * storages for the collector, at random, from a seeded generator.
     */
    @Test
    public void everyReportsTotalIsTheRunningSumWhicheverThreadFrees() throws Exception {
        // its own address range: the collector may report frees of other tests' storages meanwhile
        long base = 1L << 40;
        CpuBackend allocator = new CpuBackend(base);
        int threads = 4;
        int rounds = 3_000;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            long seed = 42 + t;
            Thread w = new Thread(() -> {
                java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                List<Storage> live = new ArrayList<>();
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        int action = random.nextInt(10);
                        if (action < 5 || live.isEmpty()) {
                            live.add(allocator.allocate(Device.CPU, DType.FLOAT32, 1 + random.nextInt(256)));
                        } else if (action < 9) {
                            live.remove(random.nextInt(live.size())).release();
                        } else {
                            live.remove(random.nextInt(live.size()));   // left to the collector
                            if (random.nextInt(50) == 0) {
                                System.gc();
                            }
                        }
                    }
                    live.forEach(Storage::release);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "allocating-" + t);
            workers.add(w);
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        allocator.deactivate();
        assertTrue(failures.toString(), failures.isEmpty());
        List<long[]> seen;
        synchronized (events) {
            seen = events.stream().filter(e -> e[0] >= base).toList();
        }
        assertTrue(seen.size() > threads * rounds / 2);
        for (int i = 1; i < seen.size(); i++) {
            long[] e = seen.get(i);
            assertEquals("report " + i + " of " + seen.size(), seen.get(i - 1)[2] + e[1], e[2]);
        }
    }

    @Test
    public void reportsAFreeOnceTheCollectorReclaimedTheStorage() throws Exception {
        // its own address range: the collector may report frees of other tests' storages meanwhile
        CpuBackend own = new CpuBackend(2L << 40);
        own.deactivate();   // its pool: only its memory is used here
        Storage forgotten = own.allocate(Device.CPU, DType.FLOAT32, 1_000);
        long address = forgotten.address();
        awaitedFree = address;
        // nothing refers to it any more, as far as the allocator knows: put it on the runtime's queue as the
        // collector does once it finds the storage unreachable; the free runs on the runtime's collector thread
        assertTrue(Storage.collectAsUnreachable(forgotten));
        assertTrue("the free was reported", freed.await(30, TimeUnit.SECONDS));
        Map<String, Long> stats = own.stats().values();
        assertEquals(1, (long) stats.get("allocation.all.freed"));
        assertEquals(0, (long) stats.get("allocated_bytes.all.current"));
        assertEquals(4016, (long) stats.get("allocated_bytes.all.peak"));
        boolean freeReported;
        synchronized (events) {
            freeReported = events.stream().anyMatch(e -> e[0] == address && e[1] == -4016 && e[2] == 0);
        }
        assertTrue("the free of block " + address + " was reported", freeReported);
        own.resetPeakStats();
        assertEquals(0, (long) own.stats().values().get("allocated_bytes.all.peak"));
    }
}
