package dev.vantage.device.mps.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.kit.emulation.EmulatedStream;
import dev.vantage.device.mps.driver.CompletedCommandBuffer;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.device.mps.driver.SyncType;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;

/**
 * Command buffers, with bodies the tests write: work is encoded without running, commits at synchronisation
 * points and adaptively, runs in order on the stream's worker, is timed inside its buffer, and waits for the open
 * buffer of another stream whose writes it reads.
 */
public class CommandBufferTest {

    private static final int ADAPTIVE = 4;
    private static final Tensor[] NONE = {};

    private EmulatedMetalDriver driver;
    private MetalDevice device;

    @Before
    public void create() {
        driver = new EmulatedMetalDriver(Map.of("streams", "4", "commit.commands", Integer.toString(ADAPTIVE),
                "capacity.mib", "64"));
        device = driver.device(0);
    }

    @After
    public void close() {
        driver.close();
    }

    private long encode(int stream, Runnable body, Tensor[] reads, Tensor[] writes, SyncType sync) {
        return device.encode(stream, MetalRecords.DISPATCH, EventKind.KERNEL, "test_kernel", Map.of("k", "v"),
                reads, writes, body, sync);
    }

    private long encode(int stream, Runnable body, SyncType sync) {
        return encode(stream, body, NONE, NONE, sync);
    }

    private EmulatedStream queue(int stream) {
        return device.stream(stream).queue();
    }

    private Tensor buffer() {
        return Tensor.wrap(driver.newBuffer(0, DType.FLOAT32, 1), 1);
    }

    @Test
    public void encodedWorkRunsOnlyOnceItsBufferIsCommitted() {
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        long first = 0;
        for (int i = 0; i < 3; i++) {
            int n = i;
            long id = encode(1, () -> ran.add(n), SyncType.NONE);
            first = i == 0 ? id : first;
            assertEquals("one open buffer takes every command", first, id);
        }
        assertEquals(3, driver.openCommands(0, 1));
        assertEquals("nothing was handed to the GPU", 0, queue(1).lastTicket());
        assertEquals(List.of(), ran);
        driver.commit(0, 1, SyncType.COMMIT_AND_WAIT);
        assertEquals(List.of(0, 1, 2), ran);
        assertEquals(0, driver.openCommands(0, 1));
        assertEquals("the three commands went as one buffer", 1, queue(1).lastTicket());
    }

    @Test
    public void synchronizingTheDeviceCommitsTheOpenBufferOfEveryStream() {
        boolean[] ran = new boolean[3];
        for (int s = 1; s <= 3; s++) {
            int n = s - 1;
            encode(s, () -> ran[n] = true, SyncType.NONE);
        }
        assertTrue(driver.synchronizeDevice(0, Long.MAX_VALUE));
        for (int s = 1; s <= 3; s++) {
            assertEquals(0, driver.openCommands(0, s));
            assertEquals(1, queue(s).lastTicket());
        }
        assertTrue(ran[0] && ran[1] && ran[2]);
    }

    @Test
    public void anAdaptiveCommitCommitsABufferHoldingItsNumberOfCommands() {
        List<Integer> ran = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < ADAPTIVE - 1; i++) {
            int n = i;
            encode(2, () -> ran.add(n), SyncType.COMMIT_ADAPTIVE);
        }
        assertEquals(ADAPTIVE - 1, driver.openCommands(0, 2));
        assertEquals(0, queue(2).lastTicket());
        encode(2, () -> ran.add(ADAPTIVE - 1), SyncType.COMMIT_ADAPTIVE);
        assertEquals("the full buffer was committed", 1, queue(2).lastTicket());
        assertEquals(0, driver.openCommands(0, 2));
        encode(2, () -> ran.add(ADAPTIVE), SyncType.COMMIT_ADAPTIVE);
        assertEquals(1, driver.openCommands(0, 2));
        driver.commit(0, 2, SyncType.COMMIT_ADAPTIVE);
        assertEquals("an adaptive commit leaves a buffer that is not full", 1, driver.openCommands(0, 2));
        assertTrue(driver.synchronizeDevice(0, Long.MAX_VALUE));
        assertEquals(List.of(0, 1, 2, 3, 4), ran);
        assertEquals(2, queue(2).lastTicket());
    }

    @Test
    public void aBuffersGpuTimeCoversEachCommandsOwnRecord() {
        List<CompletedCommandBuffer> done = new CopyOnWriteArrayList<>();
        driver.addCompletedHandler(0, done::add);
        driver.enableActivity(1000);
        float[][] sink = new float[3][4096];
        long id = 0;
        for (int i = 0; i < 3; i++) {
            float[] a = sink[i];
            id = encode(1, () -> java.util.Arrays.fill(a, 1f), SyncType.NONE);
        }
        driver.commit(0, 1, SyncType.COMMIT_AND_WAIT);
        driver.disableActivity();
        List<ActivityRecord> records = driver.flushActivity();

        assertEquals(1, done.size());
        CompletedCommandBuffer b = done.get(0);
        assertEquals(id, b.id());
        assertEquals(3, b.commands());
        assertEquals(1, b.stream());
        assertEquals("records name streams by their id, the index plus one", 2, queue(1).id());
        assertTrue(b.completed());
        List<ActivityRecord> kernels = new ArrayList<>();
        Map<Long, ActivityRecord> launches = new HashMap<>();
        ActivityRecord commit = null;
        for (ActivityRecord r : records) {
            if (r.kind() == EventKind.KERNEL) {
                kernels.add(r);
            } else if (r.name().equals(MetalRecords.COMMIT)) {
                assertNull("one commit", commit);
                commit = r;
            } else {
                assertEquals(MetalRecords.DISPATCH, r.name());
                assertNull(launches.put(r.correlation(), r));
            }
        }
        assertEquals(3, kernels.size());
        long previousEnd = b.gpuStartTime();
        for (ActivityRecord k : kernels) {
            assertEquals(queue(1).id(), k.streamId());
            assertEquals(Long.toString(b.id()), k.args().get(MetalRecords.COMMAND_BUFFER));
            assertEquals("v", k.args().get("k"));
            assertTrue("a command starts after the buffer and the command before it", k.start() >= previousEnd);
            assertTrue(k.end() <= b.gpuEndTime());
            previousEnd = k.end();
            ActivityRecord launch = launches.remove(k.correlation());
            assertNotNull("the command's encode call is recorded", launch);
            assertEquals(Long.toString(b.id()), launch.args().get(MetalRecords.COMMAND_BUFFER));
            assertEquals(Thread.currentThread().getId(), launch.threadId());
        }
        assertTrue(launches.isEmpty());
        assertNotNull(commit);
        assertEquals("3", commit.args().get(MetalRecords.COMMANDS));
        assertEquals("wait", commit.args().get(MetalRecords.TRIGGER));
        assertEquals(Long.toString(b.id()), commit.args().get(MetalRecords.COMMAND_BUFFER));
        assertEquals(0, driver.droppedRecords());
    }

    @Test
    public void workOnTheSameStreamStaysInTheOpenBuffer() {
        Tensor x = buffer();
        float[] values = x.storage().floats();
        float[] seen = {-1};
        encode(1, () -> values[0] = 7, NONE, new Tensor[] {x}, SyncType.NONE);
        encode(1, () -> seen[0] = values[0], new Tensor[] {x}, NONE, SyncType.NONE);
        assertEquals(2, driver.openCommands(0, 1));
        assertEquals(0, queue(1).lastTicket());
        driver.commit(0, 1, SyncType.COMMIT_AND_WAIT);
        assertEquals(7f, seen[0], 0f);
    }

    @Test
    public void workOnAnotherStreamReadingAnOpenBuffersWriteCommitsItAndWaitsForIt() throws Exception {
        driver.enableActivity(1000);
        Tensor x = buffer();
        float[] values = x.storage().floats();
        CountDownLatch release = new CountDownLatch(1);
        float[] seen = {-1};
        long writer = encode(1, () -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            values[0] = 42;
        }, NONE, new Tensor[] {x}, SyncType.NONE);
        assertEquals(0, queue(1).lastTicket());
        encode(2, () -> seen[0] = values[0], new Tensor[] {x}, NONE, SyncType.COMMIT);
        assertEquals("the reader committed the writer's buffer", 1, queue(1).lastTicket());
        assertEquals(0, driver.openCommands(0, 1));
        assertFalse("the reader waits for the blocked writer", queue(2).await(1, 20_000_000));
        release.countDown();
        assertTrue(driver.synchronizeDevice(0, Long.MAX_VALUE));
        assertEquals(42f, seen[0], 0f);
        driver.disableActivity();
        Set<String> triggers = new HashSet<>();
        for (ActivityRecord r : driver.flushActivity()) {
            if (r.name().equals(MetalRecords.COMMIT) && r.streamId() == queue(1).id()) {
                assertEquals(Long.toString(writer), r.args().get(MetalRecords.COMMAND_BUFFER));
                triggers.add(r.args().get(MetalRecords.TRIGGER));
            }
        }
        assertEquals(Set.of("dependency"), triggers);
    }

    @Test
    public void aFailingCommandFailsItsBufferAndIsReportedAtTheNextSynchronisation() {
        List<CompletedCommandBuffer> done = new CopyOnWriteArrayList<>();
        driver.addCompletedHandler(0, done::add);
        boolean[] ran = new boolean[3];
        encode(3, () -> ran[0] = true, SyncType.NONE);
        long id = encode(3, () -> {
            throw new ArithmeticException("bad kernel");
        }, SyncType.NONE);
        encode(3, () -> ran[1] = true, SyncType.COMMIT);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> driver.synchronizeDevice(0, Long.MAX_VALUE));
        assertTrue(e.getMessage(), e.getMessage().contains("command buffer " + id + ": test_kernel failed: bad kernel"));
        assertTrue(ran[0]);
        assertFalse("the rest of a failed buffer does not run", ran[1]);
        assertEquals(1, done.size());
        assertFalse(done.get(0).completed());
        encode(3, () -> ran[2] = true, SyncType.COMMIT_AND_WAIT);
        assertTrue("later buffers run, and the failure was reported once", ran[2]);
    }

    @Test
    public void threadsEncodingAtOnceKeepTheirOwnOrderOnTheirOwnStreams() throws Exception {
        int threads = 3;
        int commands = 50;
        List<List<Integer>> ran = new ArrayList<>();
        int[] streams = new int[threads];
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        driver.currentStream(0);
        for (int t = 0; t < threads; t++) {
            List<Integer> mine = Collections.synchronizedList(new ArrayList<>());
            ran.add(mine);
            int n = t;
            Thread w = new Thread(() -> {
                try {
                    go.await();
                    int s = driver.currentStream(0);
                    streams[n] = s;
                    for (int i = 0; i < commands; i++) {
                        int k = i;
                        encode(s, () -> mine.add(k), SyncType.COMMIT_ADAPTIVE);
                    }
                    driver.commit(0, s, SyncType.COMMIT_AND_WAIT);
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            w.start();
            workers.add(w);
        }
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(List.of(), failures);
        Set<Integer> distinct = new HashSet<>();
        for (int t = 0; t < threads; t++) {
            distinct.add(streams[t]);
            assertEquals(commands, ran.get(t).size());
            for (int i = 0; i < commands; i++) {
                assertEquals(Integer.valueOf(i), ran.get(t).get(i));
            }
            assertEquals("50 commands in buffers of " + ADAPTIVE, (commands + ADAPTIVE - 1) / ADAPTIVE,
                    queue(streams[t]).lastTicket());
        }
        assertEquals(threads, distinct.size());
    }
}
