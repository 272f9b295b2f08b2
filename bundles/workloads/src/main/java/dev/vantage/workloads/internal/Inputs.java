package dev.vantage.workloads.internal;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/** Moves a workload's data to its device, where a memory profile counts it as {@code INPUT}. */
final class Inputs {

    private Inputs() {
    }

    /** Returns the tensor on the device (itself when it is already there), its copy counted as an input. */
    static Tensor toDevice(Tensor t, Device device) {
        try (MemoryScope scope = MemoryScope.enter(MemoryCategory.INPUT)) {
            return t.to(device);
        }
    }
}
