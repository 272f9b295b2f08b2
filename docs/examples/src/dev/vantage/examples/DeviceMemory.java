package dev.vantage.examples;

import java.io.IOException;
import java.nio.file.Path;

import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.MemoryTracker;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/**
 * An accelerator's memory, as torch.cuda's memory API gives it through the {@code MemoryAdmin} service: the peaks
 * over some work, the allocator's counters and summary table, and a snapshot for PyTorch's memory_viz.
 */
public final class DeviceMemory {

    private DeviceMemory() {
    }

    /**
     * Multiplies matrices on {@code npu:0} while tracking its memory and recording its allocator's history, then
     * writes the snapshot to {@code snapshot} and returns the peaks.
     */
    public static MemoryTracker run(MemoryAdmin memoryAdmin, Path snapshot) throws IOException {
        Device npu = new Device("npu", 0);
        memoryAdmin.recordMemoryHistory("npu", 10_000, true);
        try (MemoryTracker memory = MemoryTracker.start(memoryAdmin, "npu:0")) {
            Tensor a = Tensor.randn(1, 1024, 1024).to(npu);
            Tensor b = a.matmul(a).relu();
            b.sum().item();
            memory.close();
            System.out.print(memory.report());
            System.out.print(memoryAdmin.memorySummary("npu:0", true));
            memoryAdmin.dumpMemorySnapshot("npu", snapshot);
            return memory;
        } finally {
            memoryAdmin.recordMemoryHistory("npu", 0, false);
        }
    }
}
