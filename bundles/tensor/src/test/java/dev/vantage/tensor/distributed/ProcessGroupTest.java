package dev.vantage.tensor.distributed;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.Test;

import dev.vantage.tensor.Tensor;

/** Collectives over real loopback sockets, with 1, 2 and 4 ranks as threads of this JVM. */
public class ProcessGroupTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Duration SHORT = Duration.ofSeconds(2);
    private static final int[] WORLD_SIZES = {1, 2, 4};

    /** Rank r's input: 7 values (so chunks are uneven for 2 and 4 ranks) that differ per rank. */
    private static float[] input(int r) {
        return new float[] {r + 1, 10 * (r + 1), -r, 0.5f * r, 3, r % 2 == 0 ? 1 : -1, 100 - r};
    }

    private static float[] expected(int n, ReduceOp op) {
        float[] e = input(0);
        for (int r = 1; r < n; r++) {
            float[] x = input(r);
            for (int i = 0; i < e.length; i++) {
                e[i] = switch (op) {
                    case SUM, AVG -> e[i] + x[i];
                    case MAX -> Math.max(e[i], x[i]);
                    case MIN -> Math.min(e[i], x[i]);
                };
            }
        }
        if (op == ReduceOp.AVG) {
            for (int i = 0; i < e.length; i++) {
                e[i] /= n;
            }
        }
        return e;
    }

    @Test(timeout = 60_000)
    public void allReduceGivesEveryRankTheSameReduction() throws Exception {
        for (int n : WORLD_SIZES) {
            try (Ranks ranks = Ranks.start(n, TIMEOUT)) {
                for (ReduceOp op : ReduceOp.values()) {
                    List<float[]> results = ranks.each(g -> {
                        Tensor t = Tensor.of(input(g.rank()), 7);
                        g.allReduce(t, op);
                        return t.toFloatArray();
                    });
                    for (int r = 0; r < n; r++) {
                        assertArrayEquals(n + " ranks, " + op + ", rank " + r, expected(n, op), results.get(r), 1e-5f);
                    }
                }
            }
        }
    }

    @Test(timeout = 60_000)
    public void allReduceOfLongsIsExact() throws Exception {
        try (Ranks ranks = Ranks.start(4, TIMEOUT)) {
            List<long[]> results = ranks.each(g -> {
                Tensor t = Tensor.ofLongs(new long[] {1L << 40, g.rank(), -g.rank()}, 3);
                g.allReduce(t, ReduceOp.SUM);
                return t.toLongArray();
            });
            for (long[] r : results) {
                assertArrayEquals(new long[] {4L << 40, 6, -6}, r);
            }
        }
    }

    @Test(timeout = 60_000)
    public void broadcastCopiesTheSourceRanksValuesEvenWhenLargerThanOnePiece() throws Exception {
        for (int n : WORLD_SIZES) {
            int src = n - 1;
            int size = 300_000;   // more than one 1 MB piece of floats
            try (Ranks ranks = Ranks.start(n, TIMEOUT)) {
                List<float[]> results = ranks.each(g -> {
                    float[] v = new float[size];
                    for (int i = 0; i < size; i++) {
                        v[i] = g.rank() * 1000 + i % 997;
                    }
                    Tensor t = Tensor.of(v, size);
                    g.broadcast(t, src);
                    return t.toFloatArray();
                });
                for (int r = 0; r < n; r++) {
                    float[] got = results.get(r);
                    for (int i = 0; i < size; i += 4999) {
                        assertEquals(n + " ranks, rank " + r + " [" + i + "]", src * 1000 + i % 997, got[i], 0f);
                    }
                }
            }
        }
    }

    @Test(timeout = 60_000)
    public void allGatherPutsRankRsTensorAtIndexR() throws Exception {
        for (int n : WORLD_SIZES) {
            try (Ranks ranks = Ranks.start(n, TIMEOUT)) {
                List<List<Tensor>> results = ranks.each(g -> {
                    List<Tensor> out = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        out.add(Tensor.of(new float[6], 2, 3));
                    }
                    g.allGather(out, Tensor.of(java.util.Arrays.copyOf(input(g.rank()), 6), 2, 3));
                    return out;
                });
                for (List<Tensor> out : results) {
                    for (int i = 0; i < n; i++) {
                        float[] e = input(i);
                        assertArrayEquals(new float[] {e[0], e[1], e[2], e[3], e[4], e[5]},
                                out.get(i).toFloatArray(), 0f);
                    }
                }
            }
        }
    }

    @Test(timeout = 60_000)
    public void reduceScatterGivesRankRTheReductionOfEveryRanksInputR() throws Exception {
        for (int n : WORLD_SIZES) {
            for (ReduceOp op : new ReduceOp[] {ReduceOp.SUM, ReduceOp.AVG, ReduceOp.MAX}) {
                try (Ranks ranks = Ranks.start(n, TIMEOUT)) {
                    List<float[]> results = ranks.each(g -> {
                        List<Tensor> in = new ArrayList<>();
                        for (int i = 0; i < n; i++) {
                            // rank g contributes (g + 1) * (i + 1) and i - g to slot i
                            in.add(Tensor.of(new float[] {(g.rank() + 1) * (i + 1), i - g.rank()}, 2));
                        }
                        Tensor out = Tensor.of(new float[2], 2);
                        g.reduceScatter(out, in, op);
                        for (int i = 0; i < n; i++) {
                            assertEquals("inputs stay", (g.rank() + 1) * (i + 1), in.get(i).toFloatArray()[0], 0f);
                        }
                        return out.toFloatArray();
                    });
                    for (int r = 0; r < n; r++) {
                        float sum0 = 0;
                        float sum1 = 0;
                        float max0 = Float.NEGATIVE_INFINITY;
                        float max1 = Float.NEGATIVE_INFINITY;
                        for (int g = 0; g < n; g++) {
                            sum0 += (g + 1) * (r + 1);
                            sum1 += r - g;
                            max0 = Math.max(max0, (g + 1) * (r + 1));
                            max1 = Math.max(max1, r - g);
                        }
                        float[] e = switch (op) {
                            case SUM -> new float[] {sum0, sum1};
                            case AVG -> new float[] {sum0 / n, sum1 / n};
                            default -> new float[] {max0, max1};
                        };
                        assertArrayEquals(n + " ranks, " + op + ", rank " + r, e, results.get(r), 1e-5f);
                    }
                }
            }
        }
    }

    @Test(timeout = 60_000)
    public void barrierReturnsOnlyAfterEveryRankArrived() throws Exception {
        for (int n : WORLD_SIZES) {
            AtomicInteger arrived = new AtomicInteger();
            try (Ranks ranks = Ranks.start(n, TIMEOUT)) {
                List<Integer> seen = ranks.each(g -> {
                    arrived.incrementAndGet();
                    g.barrier();
                    return arrived.get();
                });
                for (int s : seen) {
                    assertEquals(n, s);
                }
            }
        }
    }

    @Test(timeout = 60_000)
    public void asyncCollectivesRunInCallOrder() throws Exception {
        try (Ranks ranks = Ranks.start(4, TIMEOUT)) {
            List<float[]> results = ranks.each(g -> {
                Tensor t = Tensor.of(new float[] {g.rank() + 1}, 1);
                Work first = g.allReduceAsync(t, ReduceOp.SUM);    // 10
                Work second = g.broadcastAsync(t, 2);                // still 10 everywhere
                Tensor u = Tensor.of(new float[] {g.rank()}, 1);
                Work third = g.allReduceAsync(u, ReduceOp.MAX);      // 3
                third.await();
                assertTrue(first.isCompleted());
                assertTrue(second.isCompleted());
                first.await();
                g.allReduce(t, ReduceOp.SUM);                        // 40
                return new float[] {t.item(), u.item()};
            });
            for (float[] r : results) {
                assertArrayEquals(new float[] {40, 3}, r, 0f);
            }
        }
    }

    @Test(timeout = 60_000)
    public void deadPeerFailsTheOthersNamingRankPeerAndCollective() throws Exception {
        try (Ranks ranks = Ranks.start(4, SHORT)) {
            List<Throwable> thrown = ranks.failures(g -> {
                if (g.rank() == 3) {
                    g.close();
                    return null;
                }
                g.allReduce(Tensor.of(input(g.rank()), 7), ReduceOp.SUM);
                return null;
            });
            for (int r = 0; r < 3; r++) {
                Throwable t = thrown.get(r);
                assertTrue("rank " + r + " threw " + t, t instanceof DistributedException);
                assertTrue(t.getMessage(), t.getMessage().startsWith("rank " + r + ": allreduce"));
            }
            String m = thrown.get(0).getMessage();
            assertEquals("rank 0: allreduce failed: rank 3 closed its connection", m);
            // the group is broken: the next collective fails at once, saying why
            DistributedException again = assertThrows(DistributedException.class,
                    () -> ranks.groups.get(0).barrier());
            assertTrue(again.getMessage(), again.getMessage().startsWith("rank 0: barrier failed: the process group"
                    + " broke earlier (rank 0: allreduce failed: rank 3"));
        }
    }

    @Test(timeout = 60_000)
    public void silentPeerTimesOutNamingRankPeerAndCollective() throws Exception {
        try (Ranks ranks = Ranks.start(2, SHORT)) {
            List<Throwable> thrown = ranks.failures(g -> {
                if (g.rank() == 0) {
                    g.allReduce(Tensor.of(input(0), 7), ReduceOp.SUM);
                }
                return null;
            });
            assertNotNull(thrown.get(0));
            assertEquals("rank 0: allreduce timed out after 2 s waiting for rank 1", thrown.get(0).getMessage());
        }
    }

    @Test(timeout = 60_000)
    public void differentCollectivesOnTheRanksFailInsteadOfMixingData() throws Exception {
        try (Ranks ranks = Ranks.start(2, SHORT)) {
            List<Throwable> thrown = ranks.failures(g -> {
                if (g.rank() == 0) {
                    g.allReduce(Tensor.of(input(0), 7), ReduceOp.SUM);
                } else {
                    g.broadcast(Tensor.of(input(1), 7), 1);
                }
                return null;
            });
            assertTrue(String.valueOf(thrown.get(0)), thrown.get(0).getMessage().startsWith(
                    "rank 0: allreduce failed: rank 1 sent broadcast #0"));
        }
    }

    @Test
    public void worldSizeOneNeedsNoSocketAndClosedGroupRefusesWork() {
        ProcessGroup g = ProcessGroup.init(0, 1, "127.0.0.1", 1, SHORT);
        assertEquals("0", g.name());
        assertEquals("default_pg", g.description());
        assertEquals("gloo", g.backend());
        assertEquals(List.of(0), g.ranks());
        Tensor t = Tensor.of(new float[] {1, 2}, 2);
        g.allReduce(t, ReduceOp.AVG);
        g.barrier();
        assertArrayEquals(new float[] {1, 2}, t.toFloatArray(), 0f);
        g.close();
        DistributedException e = assertThrows(DistributedException.class, g::barrier);
        assertEquals("rank 0: barrier failed: the process group is closed", e.getMessage());
    }

    @Test
    public void initFromEnvNamesTheMissingOrBadVariable() {
        Map<String, String> env = new HashMap<>(Map.of("RANK", "0", "WORLD_SIZE", "2", "MASTER_ADDR", "127.0.0.1",
                "MASTER_PORT", "29500"));
        for (String name : List.of("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")) {
            Map<String, String> missing = new HashMap<>(env);
            missing.remove(name);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ProcessGroup.initFromEnv(missing));
            assertEquals("environment variable " + name + " is not set", e.getMessage());
        }
        Map<String, String> bad = new HashMap<>(env);
        bad.put("RANK", "2");
        assertTrue(assertThrows(IllegalStateException.class, () -> ProcessGroup.initFromEnv(bad)).getMessage()
                .startsWith("environment variable RANK=2 is not in [0, 1]"));
        bad.put("RANK", "0");
        bad.put("VANTAGE_LAUNCH_TIMEOUT_MS", "soon");
        assertEquals("environment variable VANTAGE_LAUNCH_TIMEOUT_MS=soon is not an integer",
                assertThrows(IllegalStateException.class, () -> ProcessGroup.initFromEnv(bad)).getMessage());
    }

    @Test(timeout = 30_000)
    public void rendezvousTimesOutWhenRankZeroNeverComes() throws Exception {
        int port = Ranks.freePort();
        DistributedException e = assertThrows(DistributedException.class,
                () -> ProcessGroup.init(1, 2, "127.0.0.1", port, Duration.ofMillis(500)));
        assertTrue(e.getMessage(), e.getMessage().startsWith("rank 1: rendezvous timed out after 500 ms"));
    }

    @Test
    public void backendsAreNamedPerDeviceType() {
        assertEquals("gloo", CollectiveBackends.forDevice("cpu").name());
        assertEquals("hccl", CollectiveBackends.forDevice("npu").name());
        assertEquals("spyre:gloo", CollectiveBackends.forDevice("spyre").name());
        assertEquals("mps:gloo", CollectiveBackends.forDevice("mps").name());
        assertFalse(Collective.durationText(60_000).contains("ms"));
        assertEquals("60 s", Collective.durationText(60_000));
        assertEquals("1.5 s", Collective.durationText(1500));
    }
}
