package dev.vantage.workloads.internal;

import java.util.EnumSet;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.optim.Optimizer;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/** Trains a 784-256-128-10 MLP on generated MNIST-shaped digits; SGD with momentum by default, or Adam. */
@Component(service = Workload.class)
public class MlpTrain implements Workload {

    static final int DEFAULT_BATCH = 64;

    @Override
    public String name() {
        return "mlp-train";
    }

    @Override
    public String description() {
        return "trains an MLP (784-256-128-10, dropout) on generated 28x28 digits; SGD or Adam";
    }

    @Override
    public Set<RunFlag> flags() {
        return EnumSet.of(RunFlag.BATCH_SIZE, RunFlag.OPTIMIZER, RunFlag.DDP);
    }

    /** A batch of images and the activations of its first layers. */
    @Override
    public long minimumHeapBytes(int batchSize, int threads) {
        return Inputs.heapBytes(batchSize > 0 ? batchSize : DEFAULT_BATCH, 1, SyntheticDigits.PIXELS, 256, 128,
                SyntheticDigits.CLASSES);
    }

    /** The model: also what parallel-infer runs. */
    static Module model(long seed) {
        return new Sequential(new Linear(SyntheticDigits.PIXELS, 256, true, seed), Layers.relu(),
                Layers.dropout(0.1, seed + 10), new Linear(256, 128, true, seed + 20), Layers.relu(),
                new Linear(128, SyntheticDigits.CLASSES, true, seed + 30));
    }

    @Override
    public void run(WorkloadContext context) {
        // the model and the optimizer's state are freed when the run ends, not when the collector gets to them
        try (Module model = model(context.seed())) {
            model.to(context.device());   // before the optimizer takes the parameters
            int batch = context.batchSize() > 0 ? context.batchSize() : DEFAULT_BATCH;
            try (Optimizer optimizer = Training.optimizer(context, model, "sgd", 0.05, 1e-3)) {
                Training.run(context, model, optimizer, batch, MlpTrain::forward);
            }
        }
    }

    /** The model on a batch of images: flattened to rows of pixels, the view closed once the model used it. */
    static Tensor forward(Module model, Tensor images) {
        Tensor rows = images.flatten(1);
        try {
            return model.forward(rows);
        } finally {
            if (rows != images) {
                rows.close();
            }
        }
    }
}
