package dev.vantage.tensor.internal;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

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
 * state) the allocation takes the scope's category; outside one it is an {@code ACTIVATION} while gradients are
 * recorded and {@code TEMPORARY} otherwise (backward intermediates, work under {@code GradMode.disabled()}). What
 * a block holds is sometimes known only later (a backward op's output that becomes a parameter's gradient, a tensor
 * registered as a parameter): {@link #categorize} re-categorises the block, whose address {@link #allocate} noted.
 *
 * <p>When no profile records memory, {@link #allocate} costs one volatile read beyond the allocation and keeps
 * nothing. While one does, it sets the thread's category with a plain field write (no scope object) and remembers
 * each storage's address in a weak map, so that a collected tensor's entry goes with it.
 */
public final class MemoryTags {

    /** Storage to the address its allocator reported; only filled while memory is profiled. */
    private static final Map<Storage, Long> ADDRESSES = Collections.synchronizedMap(new WeakHashMap<>());

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
        MemoryThread.takeAddress(thread);   // forget an address left by an allocation that was not ours
        Storage storage;
        try {
            storage = Dispatcher.allocate(device, dtype, size);
        } finally {
            MemoryThread.setCategory(thread, outer);
        }
        long address = MemoryThread.takeAddress(thread);
        if (address != MemoryThread.NO_ADDRESS) {
            ADDRESSES.put(storage, address);
        }
        return storage;
    }

    /**
     * Re-categorises the memory behind a tensor (all of its storage) in the current memory profile; does nothing
     * when none records memory, or when the storage was not allocated while one did.
     */
    public static void categorize(Tensor tensor, MemoryCategory category) {
        if (tensor == null || !MemoryEvents.enabled()) {
            return;
        }
        Storage storage = tensor.storage();
        Long address = ADDRESSES.get(storage);
        if (address != null) {
            Device d = storage.device();
            // host allocators report host memory as device index -1
            MemoryEvents.categorize(d.type(), d.type().equals("cpu") ? -1 : d.index(), address, category);
        }
    }
}
