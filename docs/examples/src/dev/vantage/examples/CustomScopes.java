package dev.vantage.examples;

import java.util.List;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.tensor.Tensor;

/** Your own scopes, as torch's {@code record_function}: they nest the ops run inside them in the trace. */
public final class CustomScopes {

    private CustomScopes() {
    }

    /** Marks data loading and the forward pass; returns the recorded events. */
    public static List<ProfilerEvent> run(Profiler profiler) {
        try (Profile profile = profiler.profile().start()) {
            Tensor batch;
            try (RecordFunction loading = RecordFunction.scope("load-batch")) {
                batch = Tensor.randn(5, 32, 32);
            }
            try (RecordFunction forward = RecordFunction.scope("forward")) {
                batch.matmul(batch).relu();
            }
            profile.stop();
            return profile.events();
        }
    }
}
