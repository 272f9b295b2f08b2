package dev.vantage.workloads.internal;

import java.util.function.BiFunction;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.distributed.DistributedDataParallel;
import dev.vantage.tensor.distributed.ProcessGroup;
import dev.vantage.tensor.distributed.ReduceOp;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.optim.Adam;
import dev.vantage.tensor.optim.Optimizer;
import dev.vantage.tensor.optim.SGD;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * The training loop the training workloads share: one batch per step, forward, loss, backward, update. With
 * {@code --ddp} each rank trains its contiguous slice of every global batch (rank r of N takes samples
 * {@code [r * B / N, (r + 1) * B / N)} of the B in the batch) with the model wrapped in
 * {@link DistributedDataParallel}; the loss printed, on rank 0 only, is the mean over ranks, which is the loss of
 * the whole batch.
 */
final class Training {

    private Training() {
    }

    /** Makes the optimizer the user chose, or the workload's default. */
    static Optimizer optimizer(WorkloadContext context, Module model, String defaultName, double sgdLr,
            double adamLr) {
        String name = context.optimizer().isEmpty() ? defaultName : context.optimizer();
        return switch (name) {
            case "sgd" -> new SGD(model.parameters(), sgdLr, 0.9, 0);
            case "adam" -> new Adam(model.parameters(), adamLr);
            default -> throw new IllegalArgumentException("unknown optimizer '" + name + "'; use sgd or adam");
        };
    }

    /**
     * Trains for the context's steps, printing {@code step <n> loss <value>} after each. The model must already
     * be on the context's device, and the optimizer made for its parameters there.
     *
     * @param input turns a batch's images, already on the device, into the model's input
     * @return the last step's loss
     */
    static float run(WorkloadContext context, Module model, Optimizer optimizer, int batchSize,
            BiFunction<Module, Tensor, Tensor> input) {
        if (!context.ddp()) {
            return run(context, model, optimizer, batchSize, input, null);
        }
        try (ProcessGroup group = ProcessGroup.initFromEnv()) {
            return run(context, model, optimizer, batchSize, input, group);
        }
    }

    /**
     * Trains as {@link #run(WorkloadContext, Module, Optimizer, int, BiFunction)}, data-parallel over a group when
     * one is given: the batch size is then the global one and must split evenly over the ranks.
     *
     * @return the last step's loss: of the whole batch (the mean over ranks) when data-parallel
     * @throws IllegalArgumentException if the batch does not split evenly over the ranks
     */
    static float run(WorkloadContext context, Module model, Optimizer optimizer, int batchSize,
            BiFunction<Module, Tensor, Tensor> input, ProcessGroup group) {
        Device device = context.device();
        int ranks = group == null ? 1 : group.worldSize();
        int rank = group == null ? 0 : group.rank();
        if (batchSize % ranks != 0) {
            throw new IllegalArgumentException("batch size " + batchSize + " does not split evenly over " + ranks
                    + " ranks");
        }
        int shard = batchSize / ranks;
        Module trained = model;
        if (group != null) {
            trained = new DistributedDataParallel(model, group);
            if (rank == 0) {
                context.out().printf("ddp: %d ranks, %d samples per rank of each batch of %d, %d gradient buckets%n",
                        ranks, shard, batchSize, ((DistributedDataParallel) trained).bucketCount());
            }
        }
        SyntheticDigits data = new SyntheticDigits(context.seed());
        model.train(true);
        // nothing here grows with the steps: a served workload runs Integer.MAX_VALUE of them
        float last = Float.NaN;
        for (int step = 0; step < context.steps(); step++) {
            // the step's batch, activations, temporaries and loss are freed when it ends, as torch frees them when
            // the loop body's references go: the memory curve is the same sawtooth every step
            try (TensorScope scope = TensorScope.open()) {
                Tensor[] batch = Inputs.batch(data, (long) step * batchSize + (long) rank * shard, shard, device);
                Tensor logits = input.apply(trained, batch[0]);
                Tensor loss = Functional.crossEntropy(logits, batch[1]);
                logits.close();   // cross entropy saved what its backward needs
                optimizer.zeroGrad();
                loss.backward();   // with DDP, returns with the gradients averaged over the ranks
                optimizer.step();
                last = group == null ? loss.item() : meanOverRanks(group, loss);
            }
            if (rank == 0) {
                context.out().printf("step %d loss %.4f%n", step + 1, last);
            }
            context.step();
        }
        return last;
    }

    /**
     * The mean of a one-element loss over the ranks: the whole batch's loss, as the shards are equal. Reduced on the
     * loss's device, as a torch script does, so a run's collectives all go through one backend (the TensorBoard
     * plugin turns its Distributed view off when a trace mixes two).
     */
    private static float meanOverRanks(ProcessGroup group, Tensor loss) {
        Tensor mean = Tensor.of(new float[] {loss.item()}, 1).to(loss.device());
        group.allReduce(mean, ReduceOp.AVG);
        return mean.item();
    }
}
