package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * A schedule of many cycles on long-lived pool threads, as a served model is profiled: every cycle has its own
 * recorder, and a pool thread must not keep the buffers (and off-heap chunks) of the cycles it recorded in.
 */
public class ThreadPoolCyclesTest {

    private static final int THREADS = 4;
    private static final int CYCLES = 1_000;

    private ProfilerComponent profiler;
    private ExecutorService pool;

    @Before
    public void start() {
        profiler = TestProfiler.activate(64L * ThreadBuffer.CHUNK_EVENTS);
        pool = Executors.newFixedThreadPool(THREADS);
    }

    @After
    public void stop() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        profiler.deactivate();
    }

    /** Runs one op on each pool thread and waits for all of them. */
    private void opOnEveryThread(String name) throws Exception {
        List<Callable<Long>> work = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            work.add(() -> {
                TestOp.of(name).call(() -> { });
                return Thread.currentThread().getId();
            });
        }
        for (Future<Long> f : pool.invokeAll(work)) {
            f.get();
        }
    }

    @Test
    public void aPoolThreadKeepsNoBufferOfAFinishedCycle() throws Exception {
        List<WeakReference<ThreadBuffer>> buffers = Collections.synchronizedList(new ArrayList<>());
        int[] delivered = new int[1];
        Set<Long> recordingThreads = new HashSet<>();
        Profile p = profiler.profile().schedule(Schedule.of(0, 0, 1, CYCLES, 0)).onTraceReady(cycle -> {
            delivered[0]++;
            for (ThreadBuffer.Snapshot s : ((CycleResult) cycle).frozen().threads()) {
                buffers.add(new WeakReference<>(s.owner()));
            }
            checkEveryThreadRecordedItsOp(cycle, recordingThreads);
        }).start();
        for (int step = 0; step < CYCLES; step++) {
            opOnEveryThread("aten::add");
            p.step();
        }
        p.stop();

        assertEquals(CYCLES, delivered[0]);
        assertTrue("pool threads recorded: " + recordingThreads, recordingThreads.size() >= THREADS);
        int alive = alive(buffers);
        // the pool threads hold the last cycle's buffer at the most; every earlier cycle's buffers are gone
        assertTrue(alive + " of " + buffers.size() + " thread buffers are still reachable after " + CYCLES
                + " cycles on " + THREADS + " threads", alive <= THREADS + 1);
    }

    private static void checkEveryThreadRecordedItsOp(ProfileResult cycle, Set<Long> recordingThreads) {
        int ops = 0;
        for (ProfilerEvent e : cycle.events()) {
            if (e.name().equals("aten::add")) {
                ops++;
                recordingThreads.add(e.threadId());
            }
        }
        assertEquals("ops recorded in one cycle", THREADS, ops);
    }

    /** Counts the buffers still reachable once unreachable ones were collected. */
    private static int alive(List<WeakReference<ThreadBuffer>> buffers) {
        int alive = Integer.MAX_VALUE;
        // a full collection clears weak references to unreachable objects; a second one is a margin, not a wait
        for (int attempt = 0; attempt < 3 && alive > THREADS + 1; attempt++) {
            System.gc();
            alive = 0;
            for (WeakReference<ThreadBuffer> b : buffers) {
                alive += b.get() != null ? 1 : 0;
            }
        }
        return alive;
    }
}
