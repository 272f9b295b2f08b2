package dev.vantage.workloads.internal;

import java.util.EnumSet;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import dev.vantage.tensor.nn.Conv2d;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.optim.Optimizer;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/** Trains a small CNN (two conv-relu-pool stages and a linear head) on generated 28x28 digits; Adam by default. */
@Component(service = Workload.class)
public class CnnTrain implements Workload {

    static final int DEFAULT_BATCH = 32;

    @Override
    public String name() {
        return "cnn-train";
    }

    @Override
    public String description() {
        return "trains a small CNN (conv2d, relu, max_pool2d, linear) on generated 28x28 digits; Adam or SGD";
    }

    @Override
    public Set<RunFlag> flags() {
        return EnumSet.of(RunFlag.BATCH_SIZE, RunFlag.OPTIMIZER, RunFlag.DDP);
    }

    /** A batch of images and the outputs of both convolutions. */
    @Override
    public long minimumHeapBytes(int batchSize, int threads) {
        return Inputs.heapBytes(batchSize > 0 ? batchSize : DEFAULT_BATCH, 1, SyntheticDigits.PIXELS, 8 * 28 * 28,
                16 * 14 * 14);
    }

    @Override
    public void run(WorkloadContext context) {
        long seed = context.seed();
        // the model and the optimizer's state are freed when the run ends, not when the collector gets to them
        try (Module model = new Sequential(new Conv2d(1, 8, 3, 1, 1, seed), Layers.relu(), Layers.maxPool2d(2),
                new Conv2d(8, 16, 3, 1, 1, seed + 10), Layers.relu(), Layers.maxPool2d(2), Layers.flatten(),
                new Linear(16 * 7 * 7, SyntheticDigits.CLASSES, true, seed + 20))) {
            model.to(context.device());   // before the optimizer takes the parameters
            int batch = context.batchSize() > 0 ? context.batchSize() : DEFAULT_BATCH;
            try (Optimizer optimizer = Training.optimizer(context, model, "adam", 0.02, 3e-3)) {
                Training.run(context, model, optimizer, batch, (m, images) -> m.forward(images));
            }
        }
    }
}
