package dev.vantage.workloads.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import dev.vantage.device.cpu.internal.CpuBackend;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/** The workloads on the real CPU kernels: training losses fall, inference is deterministic under concurrency. */
public class WorkloadsTest {

    private static CpuBackend backend;

    @BeforeClass
    public static void install() throws Exception {
        backend = new CpuBackend();
        Dispatcher.install(backend, "test", "0");
    }

    @AfterClass
    public static void uninstall() throws Exception {
        Dispatcher.uninstallAll();
        backend.deactivate();
    }

    /** Runs a workload on the CPU and returns what it printed, line by line. */
    private static List<String> run(Workload w, int steps, int threads, String optimizer) {
        return run(w, steps, threads, optimizer, Device.CPU);
    }

    /** Runs a workload on a device and returns what it printed, line by line. */
    private static List<String> run(Workload w, int steps, int threads, String optimizer, Device device) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        int[] stepped = {0};
        w.run(new WorkloadContext() {
            @Override
            public int steps() {
                return steps;
            }

            @Override
            public long seed() {
                return 7;
            }

            @Override
            public int threads() {
                return threads;
            }

            @Override
            public String optimizer() {
                return optimizer;
            }

            @Override
            public Device device() {
                return device;
            }

            @Override
            public PrintStream out() {
                return out;
            }

            @Override
            public void step() {
                stepped[0]++;
            }
        });
        assertEquals("every step calls step()", steps, stepped[0]);
        return List.of(bytes.toString(StandardCharsets.UTF_8).split("\n"));
    }

    private static float[] losses(List<String> lines) {
        Pattern p = Pattern.compile("step (\\d+) loss (\\d+\\.\\d+)");
        List<Float> losses = new ArrayList<>();
        for (String line : lines) {
            Matcher m = p.matcher(line);
            assertTrue(line, m.matches());
            assertEquals(losses.size() + 1, Integer.parseInt(m.group(1)));
            losses.add(Float.parseFloat(m.group(2)));
        }
        float[] v = new float[losses.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = losses.get(i);
        }
        return v;
    }

    @Test
    public void mlpTrainLossFallsBelowHalfWithSgd() {
        float[] l = losses(run(new MlpTrain(), 30, 0, ""));
        assertEquals(30, l.length);
        assertTrue("first " + l[0] + ", last " + l[29], l[29] < l[0] / 2);
    }

    @Test
    public void trainingOnAnotherDeviceUpdatesTheParametersThere() {
        CopyOnlyBackend npu = new CopyOnlyBackend();
        Dispatcher.install(npu, "test", "0");
        try {
            float[] l = losses(run(new MlpTrain(), 30, 0, "", new Device("npu", 0)));
            assertTrue("first " + l[0] + ", last " + l[29], l[29] < l[0] / 2);
        } finally {
            Dispatcher.uninstall(npu);
        }
    }

    @Test
    public void mlpTrainLossFallsWithAdam() {
        float[] l = losses(run(new MlpTrain(), 30, 0, "adam"));
        assertTrue("first " + l[0] + ", last " + l[29], l[29] < l[0] / 2);
    }

    @Test
    public void cnnTrainLossFalls() {
        float[] l = losses(run(new CnnTrain(), 30, 0, ""));
        assertTrue("first " + l[0] + ", last " + l[29], l[29] < l[0] / 2);
    }

    @Test
    public void transformerInferGeneratesTheSameTokensFromTheSameSeed() {
        List<String> first = run(new TransformerInfer(), 5, 0, "");
        assertEquals(5, first.size());
        for (String line : first) {
            assertTrue(line, line.matches("step \\d+ next tokens( \\d+){4}"));
        }
        assertEquals(first, run(new TransformerInfer(), 5, 0, ""));
        assertThrows(IllegalArgumentException.class, () -> run(new TransformerInfer(), 1, 0, "sgd"));
    }

    @Test
    public void parallelInferOnFourThreadsMatchesASequentialRun() {
        List<String> lines = run(new ParallelInfer(), 3, 4, "");
        Module model = MlpTrain.model(7);
        model.train(false);
        SyntheticDigits data = new SyntheticDigits(7);
        int batch = ParallelInfer.DEFAULT_BATCH;
        long[] expected = new long[3];
        long[] actual = new long[3];
        for (int step = 0; step < 3; step++) {
            for (int w = 0; w < 4; w++) {
                expected[step] += ParallelInfer.classify(model, data, ((long) step * 4 + w) * batch, batch,
                        Device.CPU);
            }
            Matcher m = Pattern.compile("step (\\d+) threads 4 samples 128 checksum (\\d+)").matcher(lines.get(step));
            assertTrue(lines.get(step), m.matches());
            actual[step] = Long.parseLong(m.group(2));
        }
        assertArrayEquals(expected, actual);
    }

    /** Every workload of this bundle, as its components register them. */
    private static List<Workload> every() {
        return List.of(new MlpTrain(), new CnnTrain(), new TransformerInfer(), new ParallelInfer(),
                new MatmulWorkload());
    }

    @Test
    public void everyWorkloadServesWithoutAStepCountUntilItsStepThrows() throws Exception {
        java.nio.file.Path components = java.nio.file.Path.of("target/classes/OSGI-INF");
        if (java.nio.file.Files.isDirectory(components)) {
            try (java.util.stream.Stream<java.nio.file.Path> xml = java.nio.file.Files.list(components)) {
                assertEquals("a workload component not in every()", every().size(), xml.filter(f -> {
                    try {
                        return java.nio.file.Files.readString(f).contains(Workload.class.getName());
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }).count());
            }
        }
        for (Workload w : every()) {
            int[] stepped = {0};
            java.util.concurrent.CancellationException stop = new java.util.concurrent.CancellationException("stop");
            java.util.concurrent.CancellationException thrown = assertThrows(w.name(),
                    java.util.concurrent.CancellationException.class, () -> w.run(new WorkloadContext() {
                        @Override
                        public int steps() {
                            return Integer.MAX_VALUE;   // as serve runs it
                        }

                        @Override
                        public long seed() {
                            return 3;
                        }

                        @Override
                        public Device device() {
                            return Device.CPU;
                        }

                        @Override
                        public PrintStream out() {
                            return new PrintStream(java.io.OutputStream.nullOutputStream());
                        }

                        @Override
                        public void step() {
                            if (++stepped[0] == 3) {
                                throw stop;
                            }
                        }
                    }));
            assertTrue(w.name(), thrown == stop);
            assertEquals(w.name(), 3, stepped[0]);
        }
    }

    @Test
    public void transformerInferBeyondItsContextGeneratesWhatTheWholeSequenceGives() {
        int steps = TransformerInfer.CONTEXT + 6;
        List<String> lines = run(new TransformerInfer(), steps, 0, "");
        // the reference keeps every token and reads the last CONTEXT of them each step
        TransformerInfer.Decoder model = new TransformerInfer.Decoder(7);
        model.train(false);
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        int batch = TransformerInfer.DEFAULT_BATCH;
        long[][] sequences = new long[batch][TransformerInfer.PROMPT + steps];
        for (long[] q : sequences) {
            for (int i = 0; i < TransformerInfer.PROMPT; i++) {
                q[i] = random.nextInt(TransformerInfer.VOCAB);
            }
        }
        try (dev.vantage.tensor.GradMode.Scope off = dev.vantage.tensor.GradMode.disabled()) {
            for (int step = 0; step < steps; step++) {
                int end = TransformerInfer.PROMPT + step;
                int start = Math.max(0, end - TransformerInfer.CONTEXT);
                long[] window = new long[batch * (end - start)];
                for (int b = 0; b < batch; b++) {
                    System.arraycopy(sequences[b], start, window, b * (end - start), end - start);
                }
                long[] next = model.forward(dev.vantage.tensor.Tensor.ofLongs(window, batch, end - start))
                        .slice(1, end - start - 1, end - start).squeeze(1).argmax(-1, false).toLongArray();
                StringBuilder line = new StringBuilder("step ").append(step + 1).append(" next tokens");
                for (int b = 0; b < batch; b++) {
                    sequences[b][end] = next[b];
                    line.append(' ').append(next[b]);
                }
                assertEquals(line.toString(), lines.get(step));
            }
        }
    }

    @Test
    public void eachWorkloadNamesTheFlagsItTakesAndTheHeapItsSizesNeed() {
        assertEquals(java.util.EnumSet.of(dev.vantage.tensor.workload.RunFlag.BATCH_SIZE,
                dev.vantage.tensor.workload.RunFlag.THREADS), new ParallelInfer().flags());
        assertEquals(java.util.EnumSet.noneOf(dev.vantage.tensor.workload.RunFlag.class),
                new MatmulWorkload().flags());
        assertTrue(new MlpTrain().flags().contains(dev.vantage.tensor.workload.RunFlag.DDP));
        // 99,999,999 images of 784 pixels: more elements than one tensor holds
        assertEquals(Long.MAX_VALUE, new MlpTrain().minimumHeapBytes(99_999_999, 0));
        // 100,000 threads of 32 images: gigabytes
        assertTrue(new ParallelInfer().minimumHeapBytes(0, 100_000) > 10L << 30);
        assertTrue(new ParallelInfer().minimumHeapBytes(0, 0) < 1L << 20);
    }
}
