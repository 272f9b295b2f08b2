package dev.vantage.workloads.internal;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/** Moves a workload's data to its device, where a memory profile counts it as {@code INPUT}. */
final class Inputs {

    private Inputs() {
    }

    /**
     * Returns the tensor on the device (itself when it is already there), its copy counted as an input. The host
     * tensor a copy was made from is closed: the batch lives on the device from here on.
     */
    static Tensor toDevice(Tensor t, Device device) {
        Tensor moved;
        try (MemoryScope scope = MemoryScope.enter(MemoryCategory.INPUT)) {
            moved = t.to(device);
        }
        if (moved != t) {
            t.close();
        }
        return moved;
    }

    /** A batch of the dataset on the device, images and labels, counted as inputs on the host and the device. */
    static Tensor[] batch(SyntheticDigits data, long first, int n, Device device) {
        Tensor[] host;
        try (MemoryScope scope = MemoryScope.enter(MemoryCategory.INPUT)) {
            host = data.batch(first, n);
        }
        return new Tensor[] {toDevice(host[0], device), toDevice(host[1], device)};
    }
}
