package dev.vantage.device.mps.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import org.junit.Test;

/** The stream pool hands each thread a stream for life: distinct threads get distinct streams while it can. */
public class StreamPoolTest {

    @Test
    public void theSameThreadAlwaysGetsTheSameStreamAndDistinctThreadsDistinctOnes() throws Exception {
        EmulatedMetalDriver driver = new EmulatedMetalDriver(Map.of());
        try {
            assertEquals(32, driver.streamCount(0));
            int mine = driver.currentStream(0);
            assertEquals("the first thread gets the default stream", 0, mine);
            int threads = 8;
            int[][] seen = new int[threads][2];
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int n = t;
                Thread w = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    seen[n][0] = driver.currentStream(0);
                    seen[n][1] = driver.currentStream(0);
                });
                w.start();
                workers.add(w);
            }
            go.countDown();
            for (Thread w : workers) {
                w.join();
            }
            Set<Integer> streams = new HashSet<>();
            for (int[] s : seen) {
                assertEquals("a thread keeps its stream", s[0], s[1]);
                assertTrue("stream " + s[0] + " is a pooled stream", s[0] >= 1 && s[0] < 32);
                streams.add(s[0]);
            }
            assertEquals("8 threads, 8 streams: " + streams, threads, streams.size());
            assertFalse(streams.contains(mine));
            assertEquals(mine, driver.currentStream(0));
        } finally {
            driver.close();
        }
    }

    @Test
    public void threadsBeyondThePoolSharePooledStreamsRoundRobin() throws Exception {
        StreamPool pool = new StreamPool(4);
        assertEquals(0, pool.current());
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int[] s = new int[1];
            Thread t = new Thread(() -> s[0] = pool.current());
            t.start();
            t.join();
            got.add(s[0]);
        }
        assertEquals(List.of(1, 2, 3, 1, 2), got);
    }

    @Test
    public void aPoolOfOneStreamGivesEveryThreadTheDefaultStream() throws Exception {
        StreamPool pool = new StreamPool(1);
        int[] s = {-1};
        Thread t = new Thread(() -> s[0] = pool.current());
        t.start();
        t.join();
        assertEquals(0, pool.current());
        assertEquals(0, s[0]);
    }
}
