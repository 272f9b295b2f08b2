package dev.vantage.examples;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.tensor.Tensor;

/** Memory profiling, as torch's {@code profile_memory=True}: who allocated what, with the table's memory columns. */
public final class MemoryProfile {

    private MemoryProfile() {
    }

    /** Multiplies two 256x256 matrices under a memory profile; returns the table sorted by self CPU memory. */
    public static String run(Profiler profiler) {
        Tensor a = Tensor.randn(1, 256, 256);
        Tensor b = Tensor.randn(2, 256, 256);
        try (Profile profile = profiler.profile().profileMemory(true).start()) {
            Tensor c = a.matmul(b).add(a);
            c.sum().item();
            profile.stop();
            return profile.keyAverages().table(SortKey.SELF_CPU_MEMORY_USAGE, 10);
        }
    }
}
