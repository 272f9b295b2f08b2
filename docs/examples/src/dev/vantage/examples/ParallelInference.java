package dev.vantage.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Linear;

/** Parallel inference: one profile records every thread that dispatches ops, each on its own row of the trace. */
public final class ParallelInference {

    private ParallelInference() {
    }

    /** Serves 8 requests on 4 threads under one profile; returns how many threads recorded events. */
    public static long run(Profiler profiler) throws Exception {
        Linear layer = new Linear(64, 64, true, 7);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (Profile profile = profiler.profile().start()) {
            List<Future<?>> requests = new ArrayList<>();
            for (int r = 0; r < 8; r++) {
                long seed = r;
                requests.add(pool.submit(() -> {
                    try (GradMode.Scope noGrad = GradMode.disabled()) {
                        return layer.forward(Tensor.randn(seed, 4, 64)).sum().item();
                    }
                }));
            }
            for (Future<?> f : requests) {
                f.get();
            }
            profile.stop();
            return profile.trace().threads().size();
        } finally {
            pool.shutdown();
        }
    }
}
