package dev.vantage.examples;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.optim.SGD;

/** The basic profile: a few training steps of a small model, recorded, and torch's table of the ops. */
public final class BasicProfile {

    private BasicProfile() {
    }

    /** Trains a 64-32-10 MLP for three steps under a profile and returns the table, sorted by self CPU time. */
    public static String run(Profiler profiler) {
        Module model = new Sequential(new Linear(64, 32, true, 1), Layers.relu(), new Linear(32, 10, true, 2));
        SGD optimizer = new SGD(model.parameters(), 0.1, 0.9, 0);
        Tensor input = Tensor.randn(3, 16, 64);
        Tensor labels = Tensor.ofLongs(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6}, 16);

        try (Profile profile = profiler.profile().activities(Activity.CPU).recordShapes(true).start()) {
            for (int step = 0; step < 3; step++) {
                Tensor loss = Functional.crossEntropy(model.forward(input), labels);
                optimizer.zeroGrad();
                loss.backward();
                optimizer.step();
                profile.step();   // marks ProfilerStep#N, as torch's prof.step()
            }
            profile.stop();
            return profile.keyAverages().table(SortKey.SELF_CPU_TIME_TOTAL, 15);
        }
    }
}
