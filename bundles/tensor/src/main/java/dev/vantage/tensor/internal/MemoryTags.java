package dev.vantage.tensor.internal;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Storage;

/**
 * Tells a memory profile what a block holds once the runtime learns it after the allocation (a backward op's output
 * that becomes a parameter's gradient, a tensor registered as a parameter): {@link #categorize} re-categorises the
 * block at the address its storage carries. What an allocation holds when it is made is the op template's to say
 * ({@code Op}): a {@code MemoryScope}'s category, else an activation or a temporary.
 */
public final class MemoryTags {

    private MemoryTags() {
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
    public static int profileIndex(Device d) {
        return d.type().equals("cpu") ? -1 : d.index();
    }
}
