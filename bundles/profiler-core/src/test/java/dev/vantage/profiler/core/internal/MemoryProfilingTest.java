package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/** profileMemory: allocator events attributed to the ops that allocated, as torch's memory columns. */
public class MemoryProfilingTest {

    @Rule
    public final TestProfiler active = new TestProfiler(1_000_000);
    private final ProfilerComponent profiler = active.component();

    /** An allocator that only counts; what matters here is that it reports through {@link MemoryEvents}. */
    private final MemoryAllocator allocator = TestProfiler.allocator("cpu");

    private Profile recordAllocations() {
        profiler.addAllocator(allocator);
        Profile p = profiler.profile().profileMemory(true).start();
        TestOp.of("outer").call(() -> {
            MemoryEvents.allocated("cpu", -1, 0x1000, 1024, 1024, 4096);
            TestOp.of("inner").call(() -> {
                MemoryEvents.allocated("cpu", -1, 0x2000, 512, 1536, 4096);
                MemoryEvents.allocated("cpu", -1, 0x2000, -256, 1280, 4096);
            });
            TestOp.of("to_npu").call(() -> MemoryEvents.allocated("npu", 0, 0x9000, 2 << 20, 2 << 20, 4 << 20));
        });
        MemoryEvents.outOfMemory("npu", 0, 64L << 30, 2 << 20, 4 << 20);
        p.stop();
        return p;
    }

    @Test
    public void memoryNeedsAnAllocatorAndCostsNothingWhenOff() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> profiler.profile().profileMemory(true).start());
        assertEquals("activity MEM is not available; available: [CPU]", e.getMessage());
        profiler.addAllocator(allocator);
        Profile p = profiler.profile().start();
        assertFalse("not asked for memory: allocators skip reporting", MemoryEvents.enabled());
        MemoryEvents.allocated("cpu", -1, 1, 100, 100, 100);
        p.stop();
        assertEquals(0, p.trace().eventCount());
    }

    @Test
    public void allocationsCountTowardTheOpsThatMadeThem() {
        Profile p = recordAllocations();
        assertFalse(MemoryEvents.enabled());
        Map<String, ProfilerEvent> events = new HashMap<>();
        p.events().forEach(e -> events.put(e.name(), e));
        assertEquals("memory instants are not events, as in torch", 3, p.events().size());
        assertEquals(1024, events.get("outer").cpuMemoryBytes());
        assertEquals(256, events.get("inner").cpuMemoryBytes());
        assertEquals(2 << 20, events.get("to_npu").deviceMemoryBytes());
        assertEquals(2, events.get("outer").childIds().size());

        Map<String, EventAverage> rows = new HashMap<>();
        p.keyAverages().rows().forEach(r -> rows.put(r.key(), r));
        assertEquals(1280, rows.get("outer").cpuMemoryBytes());
        assertEquals(1024, rows.get("outer").selfCpuMemoryBytes());
        assertEquals(2 << 20, rows.get("outer").deviceMemoryBytes());
        assertEquals(0, rows.get("outer").selfDeviceMemoryBytes());
        assertEquals(256, rows.get("inner").cpuMemoryBytes());
    }

    @Test
    public void theTableShowsMemoryColumnsInTorchsUnits() {
        Profile p = recordAllocations();
        String table = p.keyAverages().table(SortKey.SELF_CPU_MEMORY_USAGE, -1);
        assertTrue(table, table.contains("CPU Mem  Self CPU Mem       NPU Mem  Self NPU Mem"));
        List<String> rows = table.lines().skip(3).limit(3).toList();
        assertTrue(rows.toString(),
                rows.get(0).matches("\\s+outer\\s.*\\s1\\.25 Kb\\s+1\\.00 Kb\\s+2\\.00 Mb\\s+0 b\\s.*"));
        assertTrue(rows.toString(), rows.get(1).matches("\\s+inner\\s.*\\s256 b\\s+256 b\\s+0 b\\s+0 b\\s.*"));
    }

    @Test
    public void anAllocatorLeavingWhileRecordingKeepsItsEventsAndIsNoted() {
        profiler.addAllocator(allocator);
        Profile p = profiler.profile().profileMemory(true).start();
        TestOp.of("op").call(() -> MemoryEvents.allocated("cpu", -1, 0x1, 64, 64, 64));
        profiler.removeAllocator(allocator);
        p.stop();
        assertEquals(64, p.events().get(0).cpuMemoryBytes());
        assertTrue(p.trace().metadata().get("vantage.allocator.cpu.left").contains("kept"));
    }

    @Test
    public void theTraceCarriesMemoryAndOutOfMemoryInstants() {
        Profile p = recordAllocations();
        int memory = 0;
        int oom = 0;
        EventCursor c = p.trace().events();
        while (c.next()) {
            if (c.kind() == EventKind.MEMORY) {
                memory++;
                assertEquals(0, c.durationNanos());
                if (c.memoryBytes() == -256) {
                    assertEquals(0x2000, c.memoryAddress());
                    assertEquals(1280, c.memoryTotalAllocated());
                    assertEquals(4096, c.memoryTotalReserved());
                    assertEquals("cpu", c.deviceType());
                    assertEquals(-1, c.deviceIndex());
                }
            }
            if (c.kind() == EventKind.OUT_OF_MEMORY) {
                oom++;
                assertEquals(64L << 30, c.memoryBytes());
                assertEquals("npu", c.deviceType());
                assertEquals(0, c.deviceIndex());
            }
        }
        assertEquals(4, memory);
        assertEquals(1, oom);
        assertTrue(profiler.availableActivities().contains(Activity.MEM));
    }

    @Test
    public void freesReportedFromAThreadThatErasesItsThreadLocalsShareOneBufferAndOneRow() throws Exception {
        profiler.addAllocator(allocator);
        Profile p = profiler.profile().profileMemory(true).start();
        // a JDK Cleaner thread, which may report the frees of an allocator's collected blocks, erases its
        // thread-locals between tasks; this thread does the same, between frees it reports itself
        java.lang.reflect.Field locals = Thread.class.getDeclaredField("threadLocals");
        locals.setAccessible(true);
        int frees = 50;
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        Thread eraser = new Thread(() -> {
            try {
                for (int i = 0; i < frees; i++) {
                    MemoryEvents.allocated("cpu", -1, 0x1000L * (i + 1), -64, 0, 4096);
                    locals.set(Thread.currentThread(), null);
                }
            } catch (Throwable e) {
                failures.add(e);
            }
        }, "eraser");
        eraser.start();
        eraser.join();
        assertEquals(List.of(), failures);
        p.stop();
        long rows = p.trace().threads().stream().filter(t -> t.name().equals("eraser")).count();
        assertEquals("one row for the erasing thread: " + p.trace().threads(), 1, rows);
        EventCursor c = p.trace().events();
        int memory = 0;
        while (c.next()) {
            memory += c.kind() == EventKind.MEMORY ? 1 : 0;
        }
        assertEquals("every free is in the trace", frees, memory);
    }

    /** An allocator that counts and reports under its lock, as the device kit's and the host allocator do. */
    private static final class LockingAllocator {
        private final String type;
        private final int index;
        private long total;
        private long next = 0x1000;

        LockingAllocator(String type, int index) {
            this.type = type;
            this.index = index;
        }

        synchronized long allocate(long bytes) {
            long address = next;
            next += bytes;
            total += bytes;
            MemoryEvents.allocated(type, index, address, bytes, total, total);
            return address;
        }

        synchronized void free(long address, long bytes) {
            total -= bytes;
            MemoryEvents.allocated(type, index, address, -bytes, total, total);
        }
    }

    /**
     * The property an independent checker needs of a trace: on every device, in the order of the events' times, each
     * memory event's total is the previous one's plus its bytes, however many threads allocate and free. Four
     * threads allocate and free at random (seeded) on two devices, and free some of each other's blocks.
     */
    @Test
    public void totalsAreRunningSumsInTraceOrderWhicheverThreadAllocatesOrFrees() throws Exception {
        profiler.addAllocator(allocator);
        LockingAllocator[] devices = {new LockingAllocator("cpu", -1), new LockingAllocator("npu", 0)};
        java.util.concurrent.ConcurrentLinkedQueue<long[]> shared = new java.util.concurrent.ConcurrentLinkedQueue<>();
        Profile p = profiler.profile().profileMemory(true).start();
        int threads = 4;
        int rounds = 5_000;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        List<Thread> workers = new java.util.ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        for (int t = 0; t < threads; t++) {
            long seed = 7 + t;
            Thread w = new Thread(() -> {
                java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                java.util.ArrayDeque<long[]> mine = new java.util.ArrayDeque<>();
                try {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        int d = random.nextInt(2);
                        int action = random.nextInt(10);
                        if (action < 5 || mine.isEmpty()) {
                            long bytes = 512L * (1 + random.nextInt(8));
                            long[] block = {d, devices[d].allocate(bytes), bytes};
                            (random.nextBoolean() ? mine : shared).add(block);
                        } else {
                            long[] block = action < 8 ? mine.poll() : shared.poll();
                            if (block != null) {
                                devices[(int) block[0]].free(block[1], block[2]);
                            }
                        }
                    }
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
        p.stop();
        assertTrue(failures.toString(), failures.isEmpty());
        Map<String, List<long[]>> byDevice = new HashMap<>();
        EventCursor c = p.trace().events();
        while (c.next()) {
            if (c.kind() == EventKind.MEMORY) {
                byDevice.computeIfAbsent(c.deviceType(), k -> new java.util.ArrayList<>()).add(new long[] {
                    c.startEpochNanos(), c.memoryBytes(), c.memoryTotalAllocated()});
            }
        }
        assertEquals(byDevice.keySet().toString(), 2, byDevice.size());
        for (Map.Entry<String, List<long[]>> e : byDevice.entrySet()) {
            List<long[]> events = e.getValue();
            events.sort(java.util.Comparator.comparingLong(x -> x[0]));
            assertTrue(events.size() > threads * rounds / 4);
            for (int i = 1; i < events.size(); i++) {
                assertTrue(e.getKey() + ": two events at one time", events.get(i)[0] > events.get(i - 1)[0]);
                assertEquals(e.getKey() + " event " + i, events.get(i - 1)[2] + events.get(i)[1], events.get(i)[2]);
            }
        }
    }

    @Test
    public void blocksTheCollectorFreedAreCountedAndNamedInTheMetadata() {
        profiler.addAllocator(allocator);
        Profile p = profiler.profile().profileMemory(true).start();
        TestOp.of("aten::mm").call(() -> {
            MemoryEvents.allocated("npu", 0, 0x1000, 1024, 1024, 1024);
            MemoryEvents.allocated("npu", 0, 0x2000, 512, 1536, 1536);
            MemoryEvents.allocated("npu", 0, 0x3000, 512, 2048, 2048);
        });
        MemoryEvents.collected("npu", 0, 0x1000, "aten::mm");
        MemoryEvents.allocated("npu", 0, 0x1000, -1024, 1024, 1536);
        MemoryEvents.collected("npu", 0, 0x2000, "aten::mm");
        MemoryEvents.allocated("npu", 0, 0x2000, -512, 512, 1536);
        MemoryEvents.allocated("npu", 0, 0x3000, -512, 0, 1536);   // released by its owner: not late
        MemoryEvents.collected("npu", 0, 0x9999, "aten::relu");      // no such block: nothing to count
        p.stop();
        Map<String, String> m = p.trace().metadata();
        assertEquals("2", m.get("vantage.memory.late_frees"));
        assertEquals("2 blocks, 1536 bytes: aten::mm Unknown x2", m.get("vantage.memory.late_frees.npu:0"));

        Profile clean = profiler.profile().profileMemory(true).start();
        TestOp.of("op").call(() -> MemoryEvents.allocated("cpu", -1, 0x1, 64, 64, 64));
        clean.stop();
        assertEquals("0", clean.trace().metadata().get("vantage.memory.late_frees"));
    }
}
