package dev.vantage.tensor.internal;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ObjIntConsumer;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/**
 * The count of late frees, and what a storage's report of one names. A storage's memory goes back exactly once: when
 * the last tensor using it is closed (the normal case: a scope closed it, or its owner did), or, for a storage that
 * became unreachable with users left, when the collector finds it ({@link Storage} registers itself with a cleaner).
 * Such a late free is counted here ({@link #lateFrees()}) and reported to a memory profile
 * ({@link MemoryEvents#collected}) with the op that allocated it, on the cleaner's thread, before the free itself.
 * The op is told by the runtime right after the allocation ({@link #allocatedBy}), while a profile records memory:
 * registering looks nothing up.
 */
public final class Lifetimes {

    private static final AtomicLong LATE_FREES = new AtomicLong();
    private static final AtomicLong LATE_BYTES = new AtomicLong();
    /** How the runtime names a storage's allocating op, which the storage keeps private; bound by {@link Storage}. */
    private static volatile ObjIntConsumer<Storage> origins;

    private Lifetimes() {
    }

    /**
     * Binds how a storage is told the op that allocated it; {@link Storage} calls it once, when it is initialised.
     *
     * @throws IllegalStateException if bound already
     */
    public static synchronized void bind(ObjIntConsumer<Storage> allocatedBy) {
        if (origins != null) {
            throw new IllegalStateException("storages' origins are bound already");
        }
        origins = Objects.requireNonNull(allocatedBy, "allocatedBy");
    }

    /**
     * Names the op that allocated a storage, for the report of a late free; does nothing for a storage no allocator
     * gave a free action.
     *
     * @param op the op's name id in {@code OpNames}, or -1 for none
     */
    public static void allocatedBy(Storage storage, int op) {
        origins.accept(storage, op);
    }

    /**
     * Counts a late free and reports it to a memory profile, on the cleaner's thread, before the allocator's free.
     *
     * @param op the name id of the op that allocated the storage, or -1
     */
    public static void lateFree(Device device, long address, long bytes, int op) {
        LATE_FREES.incrementAndGet();
        LATE_BYTES.addAndGet(bytes);
        MemoryEvents.collected(device.type(), MemoryTags.profileIndex(device), address, op < 0 ? "" : OpNames.name(op));
    }

    /** Returns how many storages the garbage collector freed because no one released them, since the start. */
    public static long lateFrees() {
        return LATE_FREES.get();
    }

    /** Returns the bytes of those storages. */
    public static long lateFreeBytes() {
        return LATE_BYTES.get();
    }
}
