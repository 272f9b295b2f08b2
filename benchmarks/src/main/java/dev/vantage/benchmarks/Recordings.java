package dev.vantage.benchmarks;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/** Shared pieces of the benchmarks: a backend whose kernels do nothing, and a workload of a known shape. */
final class Recordings {

    private Recordings() {
    }

    /**
     * Stops an iteration's profile and fails the benchmark if its buffers filled up (a figure of a profile that
     * dropped events would be too good). It reads the raw counts: analysing the trace here would add its arrays to
     * the measured allocation.
     */
    static void stopChecked(Profile profile) {
        profile.stop();
        if (StandaloneProfiler.dropped(profile) > 0) {
            throw new IllegalStateException("the benchmark filled the buffer: raise maxEvents");
        }
    }

    /**
     * A CPU backend whose kernels do nothing and whose one-element outputs share one storage: dispatch without
     * kernel work or array allocation.
     */
    static final class NoOpBackend implements Backend {
        private final Storage one = Storage.create(Device.CPU, DType.FLOAT32, 1);

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
        public Storage allocate(Device device, DType dtype, int size) {
            return size == 1 && dtype == DType.FLOAT32 ? one : Storage.create(device, dtype, size);
        }

        @Override
        public void registerKernels(KernelRegistry registry) {
            for (String op : registry.ops()) {
                registry.register(op, call -> { });
            }
        }
    }

    /**
     * Records {@code events} events as a training loop would produce them: groups of one annotation around four
     * ops (mm, add, mul, sum), so that a fifth of the events have children.
     */
    static void record(int events) {
        Tensor a = Tensor.of(new float[] {1f}, 1, 1);
        Tensor b = Tensor.of(new float[] {2f}, 1, 1);
        for (int i = 0; i < events / 5; i++) {
            try (RecordFunction layer = RecordFunction.scope("layer" + (i & 15))) {
                a.mm(b);
                a.add(b);
                a.mul(b);
                a.sum();
            }
        }
    }
}
