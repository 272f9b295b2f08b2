package dev.vantage.workloads.internal;

import java.util.function.BiFunction;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.optim.Adam;
import dev.vantage.tensor.optim.Optimizer;
import dev.vantage.tensor.optim.SGD;
import dev.vantage.tensor.workload.WorkloadContext;

/** The training loop the training workloads share: one batch per step, forward, loss, backward, update. */
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
     * @return the losses, one per step
     */
    static float[] run(WorkloadContext context, Module model, Optimizer optimizer, int batchSize,
            BiFunction<Module, Tensor, Tensor> input) {
        Device device = context.device();
        SyntheticDigits data = new SyntheticDigits(context.seed());
        model.train(true);
        float[] losses = new float[context.steps()];
        for (int step = 0; step < context.steps(); step++) {
            Tensor[] batch = data.batch((long) step * batchSize, batchSize);
            Tensor images = Inputs.toDevice(batch[0], device);
            Tensor labels = Inputs.toDevice(batch[1], device);
            Tensor loss = Functional.crossEntropy(input.apply(model, images), labels);
            optimizer.zeroGrad();
            loss.backward();
            optimizer.step();
            losses[step] = loss.item();
            context.out().printf("step %d loss %.4f%n", step + 1, losses[step]);
            context.step();
        }
        return losses;
    }
}
