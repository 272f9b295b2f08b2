package dev.vantage.workloads.internal;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/**
 * Moves a workload's data to its device, where a memory profile counts it as {@code INPUT}; and sizes it, for
 * {@link dev.vantage.tensor.workload.Workload#minimumHeapBytes}.
 */
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

    /**
     * Returns the float32 bytes of {@code copies} batches of {@code batch} samples, each sample holding tensors of
     * {@code perSample} elements; {@link Long#MAX_VALUE} when one of those tensors would exceed the largest array
     * (a tensor holds at most {@link Integer#MAX_VALUE} elements), so that no heap holds it.
     */
    static long heapBytes(int batch, int copies, int... perSample) {
        long total = 0;
        for (int n : perSample) {
            long elements = (long) batch * n;
            if (elements > Integer.MAX_VALUE) {
                return Long.MAX_VALUE;
            }
            total += elements * Float.BYTES;
        }
        return Math.multiplyHigh(total, copies) != 0 || total * copies < 0 ? Long.MAX_VALUE : total * copies;
    }
}
