package dev.vantage.workloads.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import dev.vantage.device.cpu.internal.CpuBackend;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.distributed.DistributedDataParallel;
import dev.vantage.tensor.distributed.ProcessGroup;
import dev.vantage.tensor.distributed.ReduceOp;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.optim.SGD;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * Data-parallel training over ranks that are threads of this JVM, on the real CPU kernels: N ranks training the MLP
 * with DistributedDataParallel on their shards take the same steps as one process on the whole batch.
 */
public class DistributedTrainingTest {

    private static final long SEED = 7;
    private static final int BATCH = 16;
    private static final int STEPS = 3;
    private static CpuBackend backend;

    @BeforeClass
    public static void install() {
        backend = new CpuBackend();
        dev.vantage.tensor.internal.Dispatcher.install(backend, "test", "0");
    }

    @AfterClass
    public static void uninstall() throws Exception {
        dev.vantage.tensor.internal.Dispatcher.uninstallAll();
        backend.deactivate();
    }

    /** Losses per step and the final parameters of one process training on the whole batches. */
    private static Result single() {
        Module model = MlpTrain.model(SEED);
        model.train(false);   // no dropout: its masks depend on the batch split
        SGD sgd = new SGD(model.parameters(), 0.05, 0.9, 0);
        SyntheticDigits data = new SyntheticDigits(SEED);
        float[] losses = new float[STEPS];
        for (int step = 0; step < STEPS; step++) {
            Tensor[] batch = data.batch((long) step * BATCH, BATCH);
            Tensor loss = Functional.crossEntropy(model.forward(batch[0].flatten(1)), batch[1]);
            sgd.zeroGrad();
            loss.backward();
            sgd.step();
            losses[step] = loss.item();
        }
        return new Result(losses, params(model));
    }

    /** The same on rank r of a group: its own initial weights (DDP broadcasts rank 0's), its shard of each batch. */
    private static Result rank(ProcessGroup group, double bucketCapMb) {
        Module model = MlpTrain.model(SEED + 100L * group.rank());
        model.train(false);
        SGD sgd = new SGD(model.parameters(), 0.05, 0.9, 0);
        DistributedDataParallel ddp = new DistributedDataParallel(model, group, bucketCapMb);
        SyntheticDigits data = new SyntheticDigits(SEED);
        int shard = BATCH / group.worldSize();
        float[] losses = new float[STEPS];
        for (int step = 0; step < STEPS; step++) {
            Tensor[] batch = data.batch((long) step * BATCH + (long) group.rank() * shard, shard);
            Tensor loss = Functional.crossEntropy(ddp.forward(batch[0].flatten(1)), batch[1]);
            sgd.zeroGrad();
            loss.backward();
            sgd.step();
            Tensor mean = Tensor.of(new float[] {loss.item()}, 1);
            group.allReduce(mean, ReduceOp.AVG);
            losses[step] = mean.item();
        }
        return new Result(losses, params(model));
    }

    private record Result(float[] losses, List<float[]> params) {
    }

    private static List<float[]> params(Module model) {
        List<float[]> all = new ArrayList<>();
        for (Tensor p : model.parameters()) {
            all.add(p.toFloatArray());
        }
        return all;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Runs a body on n ranks, each with its own process group, and returns the results by rank. */
    private static <T> List<T> onRanks(int n, java.util.function.Function<ProcessGroup, T> body) throws Exception {
        // a free port may be taken by another socket before rank 0 binds it: then run again on another
        for (int attempt = 1; ; attempt++) {
            try {
                return onRanks(n, body, freePort());
            } catch (java.util.concurrent.ExecutionException e) {
                boolean taken = false;
                for (Throwable t = e; t != null; t = t.getCause()) {
                    taken |= t instanceof java.net.BindException;
                }
                if (attempt == 3 || !taken) {
                    throw e;
                }
            }
        }
    }

    private static <T> List<T> onRanks(int n, java.util.function.Function<ProcessGroup, T> body, int port)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(n);
        try {
            List<Future<T>> running = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                running.add(threads.submit(() -> {
                    try (ProcessGroup g = ProcessGroup.init(rank, n, "127.0.0.1", port, Duration.ofSeconds(30))) {
                        return body.apply(g);
                    }
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : running) {
                results.add(f.get());
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    private static void assertClose(String what, float expected, float actual) {
        assertTrue(what + ": expected " + expected + " got " + actual,
                Math.abs(expected - actual) <= 1e-5 * Math.max(1, Math.abs(expected)));
    }

    private static void assertSameTraining(Result expected, Result actual, String who) {
        for (int s = 0; s < STEPS; s++) {
            assertClose(who + " loss at step " + (s + 1), expected.losses()[s], actual.losses()[s]);
        }
        for (int i = 0; i < expected.params().size(); i++) {
            float[] e = expected.params().get(i);
            float[] a = actual.params().get(i);
            assertEquals(e.length, a.length);
            for (int j = 0; j < e.length; j++) {
                assertClose(who + " parameter " + i + "[" + j + "]", e[j], a[j]);
            }
        }
    }

    @Test(timeout = 120_000)
    public void ddpOnShardsTrainsLikeOneProcessOnTheWholeBatch() throws Exception {
        Result single = single();
        // the default 25 MB cap puts the whole MLP in one bucket; 0.1 MB gives one per parameter or so
        for (int n : new int[] {2, 4}) {
            for (double cap : new double[] {DistributedDataParallel.DEFAULT_BUCKET_CAP_MB, 0.1}) {
                List<Result> ranks = onRanks(n, g -> rank(g, cap));
                for (int r = 0; r < n; r++) {
                    assertSameTraining(single, ranks.get(r), n + " ranks, cap " + cap + " MB, rank " + r);
                }
            }
        }
    }

    @Test(timeout = 120_000)
    public void bucketsFollowReverseParameterOrderAndTheCap() throws Exception {
        List<Integer> counts = onRanks(2, g -> {
            Module model = MlpTrain.model(SEED);
            return List.of(new DistributedDataParallel(model, g).bucketCount(),
                    new DistributedDataParallel(MlpTrain.model(SEED), g, 0.1).bucketCount());
        }).get(0);
        assertEquals(1, (int) counts.get(0));
        // reversed: biases and the small layers share buckets until 0.1 MB; the 784x256 weight is alone
        assertTrue("buckets " + counts.get(1), counts.get(1) >= 3);
    }

    @Test(timeout = 120_000)
    public void mlpTrainWithDdpPrintsTheWholeBatchLossOnRankZeroOnlyAndKeepsRanksInStep() throws Exception {
        List<Object[]> results = onRanks(2, g -> {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            WorkloadContext context = new WorkloadContext() {
                @Override
                public int steps() {
                    return 2;
                }

                @Override
                public long seed() {
                    return SEED;
                }

                @Override
                public boolean ddp() {
                    return true;
                }

                @Override
                public Device device() {
                    return Device.CPU;
                }

                @Override
                public PrintStream out() {
                    return out;
                }

                @Override
                public void step() {
                }
            };
            Module model = MlpTrain.model(SEED + g.rank());
            float last = Training.run(context, model, Training.optimizer(context, model, "sgd", 0.05, 1e-3),
                    MlpTrain.DEFAULT_BATCH, (m, images) -> m.forward(images.flatten(1)), g);
            return new Object[] {bytes.toString(StandardCharsets.UTF_8), last, params(model)};
        });
        String rank0 = (String) results.get(0)[0];
        assertTrue(rank0, rank0.startsWith("ddp: 2 ranks, 32 samples per rank of each batch of 64, 1 gradient"
                + " buckets\nstep 1 loss "));
        assertTrue(rank0, rank0.contains("\nstep 2 loss "));
        assertEquals("", results.get(1)[0]);
        assertEquals((float) results.get(0)[1], (float) results.get(1)[1], 0f);
        @SuppressWarnings("unchecked")
        List<float[]> p0 = (List<float[]>) results.get(0)[2];
        @SuppressWarnings("unchecked")
        List<float[]> p1 = (List<float[]>) results.get(1)[2];
        for (int i = 0; i < p0.size(); i++) {
            // the ring gives every rank the same bits, so the replicas never drift apart
            assertTrue("parameter " + i, java.util.Arrays.equals(p0.get(i), p1.get(i)));
        }
    }
}
