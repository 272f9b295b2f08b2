package dev.vantage.tensor.internal;

import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemoryThread;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Storage;

/**
 * Tells a memory profile what the runtime's allocations hold ({@link MemoryCategory}). Every tensor the runtime
 * allocates goes through {@link #allocate}: inside an explicit {@code MemoryScope} (parameters, inputs, optimizer
 * state, the backward pass) the allocation takes the scope's category; outside one it is an {@code ACTIVATION}
 * while gradients are recorded and {@code TEMPORARY} otherwise (work under {@code GradMode.disabled()}). What a
 * block holds is sometimes known only later (a backward op's output that becomes a parameter's gradient, a tensor
 * registered as a parameter): {@link #categorize} re-categorises the block at the address its storage carries.
 *
 * <p>When no profile records memory, {@link #allocate} costs one volatile read beyond the allocation. While one
 * does, it sets the thread's category with a plain field write (no scope object); nothing is kept per storage.
 */
public final class MemoryTags {

    private MemoryTags() {
    }

    /** Allocates a storage through the device's backend, telling a memory profile what it holds. */
    public static Storage allocate(Device device, DType dtype, int size) {
        if (!MemoryEvents.enabled()) {
            return Dispatcher.allocate(device, dtype, size);
        }
        DispatchThread thread = DispatchThread.current();
        MemoryCategory outer = MemoryThread.category(thread);
        if (outer == MemoryCategory.UNKNOWN) {
            MemoryThread.setCategory(thread, GradMode.isEnabled() ? MemoryCategory.ACTIVATION
                    : MemoryCategory.TEMPORARY);
        }
        try {
            return Dispatcher.allocate(device, dtype, size);
        } finally {
            MemoryThread.setCategory(thread, outer);
        }
    }

    /**
     * Re-categorises the memory behind a tensor (all of its storage) in the current memory profile; does nothing
     * when none records memory, or when its allocator reported no address.
     */
    public static void categorize(Tensor tensor, MemoryCategory category) {
        if (tensor == null || !MemoryEvents.enabled()) {
            return;
        }
        Storage storage = tensor.storage();
        long address = storage.address();
        if (address != Storage.NO_ADDRESS) {
            Device d = storage.device();
            MemoryEvents.categorize(d.type(), profileIndex(d), address, category);
        }
    }

    /** The device index allocators report: -1 for host memory, as torch reports the CPU's. */
    static int profileIndex(Device d) {
        return d.type().equals("cpu") ? -1 : d.index();
    }
}
