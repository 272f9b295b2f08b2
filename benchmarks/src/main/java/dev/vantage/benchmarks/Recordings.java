package dev.vantage.benchmarks;

import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelRegistry;

/** Shared pieces of the benchmarks: a backend whose kernels do nothing, and a workload of a known shape. */
final class Recordings {

    private Recordings() {
    }

    /** A CPU backend whose kernels return their first input: dispatch without kernel work or allocation. */
    static final class NoOpBackend implements Backend {
        @Override
        public String deviceType() {
            return "cpu";
        }

        @Override
        public DispatchKey dispatchKey() {
            return DispatchKey.CPU;
        }

        @Override
        public boolean emulated() {
            return false;
        }

        @Override
        public void registerKernels(KernelRegistry registry) {
            registry.binary("aten::add", (x, y) -> x);
            registry.binary("aten::mul", (x, y) -> x);
            registry.binary("aten::matmul", (x, y) -> x);
            registry.unary("aten::sum", x -> x);
        }
    }

    /**
     * Records {@code events} events as a training loop would produce them: groups of one annotation around four
     * ops (matmul, add, mul, sum), so that a fifth of the events have children.
     */
    static void record(int events) {
        Tensor a = Tensor.of(new float[] {1f}, 1);
        Tensor b = Tensor.of(new float[] {2f}, 1);
        for (int i = 0; i < events / 5; i++) {
            try (RecordFunction layer = RecordFunction.scope("layer" + (i & 15))) {
                a.matmul(b);
                a.add(b);
                a.mul(b);
                a.sum();
            }
        }
    }
}
