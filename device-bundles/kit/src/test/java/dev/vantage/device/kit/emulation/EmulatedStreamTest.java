package dev.vantage.device.kit.emulation;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Test;

/** Streams run their work in order, asynchronously, and report a failure once at the next synchronisation. */
public class EmulatedStreamTest {

    private final EmulatedStream stream = new EmulatedStream("test:0 stream 1", 1);

    @After
    public void close() {
        stream.close();
    }

    @Test
    public void runsWorkInSubmissionOrderOffTheCallersThread() throws Exception {
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
        long last = 0;
        for (int i = 0; i < 100; i++) {
            int n = i;
            last = stream.submit(() -> {
                order.add(n);
                threads.add(Thread.currentThread());
            });
        }
        assertEquals(100, last);
        assertTrue(stream.await(last, 10_000_000_000L));
        for (int i = 0; i < 100; i++) {
            assertEquals(Integer.valueOf(i), order.get(i));
        }
        assertTrue(threads.stream().allMatch(t -> t == threads.get(0) && t != Thread.currentThread()));
    }

    @Test
    public void submittingReturnsBeforeTheWorkRuns() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        long ticket = stream.submit(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertFalse("the work is blocked, so waiting times out", stream.await(ticket, 1_000_000));
        release.countDown();
        assertTrue(stream.await(ticket, Long.MAX_VALUE));
    }

    @Test
    public void aFailureIsThrownOnceAtTheNextSynchronisationAndLaterWorkStillRuns() {
        stream.submit(() -> {
            throw new ArithmeticException("bad kernel");
        });
        boolean[] ran = {false};
        stream.submit(() -> ran[0] = true);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> stream.synchronize(Long.MAX_VALUE));
        assertEquals("asynchronous failure on test:0 stream 1: bad kernel", e.getMessage());
        assertTrue(ran[0]);
        assertTrue(stream.synchronize(Long.MAX_VALUE));
    }

    @Test(timeout = 30_000)
    public void aWorkerThatDiesFailsEveryWaiterAndLaterSubmissionWithItsCause() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        OutOfMemoryError killer = new OutOfMemoryError("Java heap space");
        long first = stream.submit(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw killer;
        });
        long queued = stream.submit(() -> { });
        started.await();
        // two host threads and another stream's worker wait on it while it dies
        List<Throwable> seen = Collections.synchronizedList(new ArrayList<>());
        List<Thread> waiters = new ArrayList<>();
        for (long ticket : new long[] {first, queued}) {
            Thread t = new Thread(() -> {
                try {
                    stream.await(ticket, Long.MAX_VALUE);
                } catch (Throwable e) {
                    seen.add(e);
                }
            });
            t.start();
            waiters.add(t);
        }
        EmulatedStream other = new EmulatedStream("test:0 stream 2", 2);
        try {
            long dependent = other.submit(() -> stream.fence(queued).await());
            release.countDown();
            for (Thread t : waiters) {
                t.join();
            }
            assertEquals(2, seen.size());
            for (Throwable e : seen) {
                assertEquals(IllegalStateException.class, e.getClass());
                assertEquals("test:0 stream 1 stopped: its worker died of java.lang.OutOfMemoryError: Java heap space",
                        e.getMessage());
                assertTrue(e.getCause() == killer);
            }
            IllegalStateException onOther = assertThrows(IllegalStateException.class,
                    () -> other.await(dependent, Long.MAX_VALUE));
            assertTrue(onOther.getMessage(), onOther.getMessage().contains("test:0 stream 1 stopped"));
        } finally {
            other.close();
        }
        IllegalStateException later = assertThrows(IllegalStateException.class, () -> stream.submit(() -> { }));
        assertTrue(later.getCause() == killer);
        assertThrows(IllegalStateException.class, () -> stream.synchronize(Long.MAX_VALUE));
    }

    @Test
    public void aClosedStreamRefusesWork() {
        stream.close();
        assertThrows(IllegalStateException.class, () -> stream.submit(() -> { }));
    }
}
