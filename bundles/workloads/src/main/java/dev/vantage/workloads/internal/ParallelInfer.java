package dev.vantage.workloads.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import java.util.EnumSet;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * Inference of the mlp-train model on several threads at once, sharing the model: each step, every thread
 * classifies its own batch, and the step ends when all have finished. Prints per step a
 * checksum of the predicted classes, which depends only on the seed, the thread count and the batch size, so a
 * result that concurrency corrupted shows as a different number.
 */
@Component(service = Workload.class)
public class ParallelInfer implements Workload {

    static final int DEFAULT_THREADS = 4;
    static final int DEFAULT_BATCH = 32;

    @Override
    public String name() {
        return "parallel-infer";
    }

    @Override
    public String description() {
        return "MLP inference on N threads at once (--threads, default 4), one batch per thread per step";
    }

    @Override
    public Set<RunFlag> flags() {
        return EnumSet.of(RunFlag.BATCH_SIZE, RunFlag.THREADS);
    }

    /** Every thread's batch of images and the activations of the model's layers. */
    @Override
    public long minimumHeapBytes(int batchSize, int threads) {
        return Inputs.heapBytes(batchSize > 0 ? batchSize : DEFAULT_BATCH, threads > 0 ? threads : DEFAULT_THREADS,
                SyntheticDigits.PIXELS, 256, 128, SyntheticDigits.CLASSES);
    }

    @Override
    public void run(WorkloadContext context) {
        if (!context.optimizer().isEmpty()) {
            throw new IllegalArgumentException("parallel-infer does not train; --optimizer does not apply");
        }
        Device device = context.device();
        int threads = context.threads() > 0 ? context.threads() : DEFAULT_THREADS;
        int batch = context.batchSize() > 0 ? context.batchSize() : DEFAULT_BATCH;
        Module model = MlpTrain.model(context.seed());
        try (model) {
            model.to(device).train(false);
            infer(context, model, device, threads, batch);
        }
    }

    private static void infer(WorkloadContext context, Module model, Device device, int threads, int batch) {
        SyntheticDigits data = new SyntheticDigits(context.seed());
        AtomicInteger ids = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "infer-" + ids.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        try {
            for (int step = 0; step < context.steps(); step++) {
                List<Future<Long>> results = new ArrayList<>();
                for (int w = 0; w < threads; w++) {
                    long first = ((long) step * threads + w) * batch;
                    results.add(pool.submit(() -> classify(model, data, first, batch, device)));
                }
                long checksum = 0;
                for (Future<Long> r : results) {
                    checksum += r.get();
                }
                context.out().printf("step %d threads %d samples %d checksum %d%n", step + 1, threads,
                        threads * batch, checksum);
                context.step();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("parallel-infer was interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("an inference thread failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Classifies one batch; returns the sum of each sample's number (from 1) times its predicted class. */
    static long classify(Module model, SyntheticDigits data, long first, int batch, Device device) {
        // on the inference thread: its own scope frees its batch and activations when the batch is classified
        try (GradMode.Scope off = GradMode.disabled(); TensorScope scope = TensorScope.open()) {
            Tensor images = Inputs.batch(data, first, batch, device)[0];
            long[] classes = MlpTrain.forward(model, images).argmax(1, false).toLongArray();
            long sum = 0;
            for (int i = 0; i < classes.length; i++) {
                if (classes[i] < 0 || classes[i] >= SyntheticDigits.CLASSES) {
                    throw new IllegalStateException("prediction out of range: " + classes[i]);
                }
                sum += (first + i + 1) * classes[i];
            }
            return sum;
        }
    }
}
