package dev.vantage.examples;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;

/** Inference: no autograd, batches of two sizes, and the table grouped by input shape to tell them apart. */
public final class InferenceProfile {

    private InferenceProfile() {
    }

    /** Runs batches of 1 and 32 through a model without gradients; returns the table grouped by input shape. */
    public static String run(Profiler profiler) {
        Module model = new Sequential(new Linear(128, 64, true, 1), Layers.relu(), new Linear(64, 8, true, 2));
        model.train(false);
        try (Profile profile = profiler.profile().recordShapes(true).start();
                GradMode.Scope noGrad = GradMode.disabled()) {
            for (int batch : new int[] {1, 32, 1, 32}) {
                model.forward(Tensor.randn(batch, batch, 128));
            }
            profile.stop();
            // torch's key_averages(group_by_input_shape=True)
            return profile.keyAverages(true, 0).table(SortKey.CPU_TIME_TOTAL, 20);
        }
    }
}
