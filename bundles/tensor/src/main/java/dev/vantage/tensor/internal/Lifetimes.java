package dev.vantage.tensor.internal;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.Device;

/**
 * The garbage collector as a safety net for memory nobody released. A storage whose allocator gave a free action is
 * registered here: its memory goes back exactly once, either when the last tensor using it is closed (the normal
 * case: a scope closed it, or its owner did), or, for a storage that became unreachable with users left, when the
 * collector finds it. Such a late free is counted ({@link #lateFrees()}) and reported to a memory profile
 * ({@link MemoryEvents#collected}) with the op that allocated it, on the cleaner's thread, before the free itself.
 */
public final class Lifetimes {

    private static final Cleaner CLEANER = Cleaner.create();
    private static final AtomicLong LATE_FREES = new AtomicLong();
    private static final AtomicLong LATE_BYTES = new AtomicLong();

    private Lifetimes() {
    }

    /** One storage's free action, run once, explicitly or by the collector. */
    public static final class Lifetime implements Runnable {
        private final Runnable free;
        private final Device device;
        private final long address;
        private final long bytes;
        private final int origin;
        private volatile boolean released;
        private volatile Cleaner.Cleanable cleanable;

        private Lifetime(Runnable free, Device device, long address, long bytes, int origin) {
            this.free = free;
            this.device = device;
            this.address = address;
            this.bytes = bytes;
            this.origin = origin;
        }

        /** Frees the memory now, as its last user released it; does nothing the second time. */
        public void release() {
            released = true;
            cleanable.clean();
        }

        @Override
        public void run() {
            if (!released) {
                LATE_FREES.incrementAndGet();
                LATE_BYTES.addAndGet(bytes);
                MemoryEvents.collected(device.type(), MemoryTags.profileIndex(device), address,
                        origin < 0 ? "" : OpNames.name(origin));
            }
            free.run();
        }
    }

    /**
     * Registers a storage's free action.
     *
     * @param storage the storage whose unreachability runs the action, if nothing released it before
     * @param free gives the memory back to its allocator
     * @param address the block's address, as its allocator reported it
     * @param bytes the storage's size, for the count of late frees
     */
    public static Lifetime register(Object storage, Runnable free, Device device, long address, long bytes) {
        int origin = MemoryEvents.enabled() ? CallFrame.innermostNameId() : -1;
        Lifetime l = new Lifetime(free, device, address, bytes, origin);
        l.cleanable = CLEANER.register(storage, l);
        return l;
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
