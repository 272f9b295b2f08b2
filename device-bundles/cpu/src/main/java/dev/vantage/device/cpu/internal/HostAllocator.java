package dev.vantage.device.cpu.internal;

import java.lang.ref.Cleaner;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Storage;

/**
 * The CPU device's tracked allocator: every tensor the runtime allocates on the host, of any dtype, gets its
 * storage here. It counts bytes and blocks as torch's {@code memory_stats()} does and reports each allocation to
 * the profiler through {@link MemoryEvents}. The JVM frees memory when the collector reclaims it, not when a
 * tensor goes out of scope; so a block counts as freed, and is reported, when its storage has been collected (a
 * {@link Cleaner} notices), from the cleaner's thread. Host memory is not reserved ahead, so reserved equals
 * allocated. Registered also under its own class, for the CPU backend in this bundle. Thread-safe.
 */
@Component(service = {MemoryAllocator.class, HostAllocator.class})
public class HostAllocator implements MemoryAllocator {

    private static final Cleaner CLEANER = Cleaner.create();
    private static final String DEVICE = "cpu";

    private final AtomicLong current = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong allocatedTotal = new AtomicLong();
    private final AtomicLong freedTotal = new AtomicLong();
    private final AtomicLong blocks = new AtomicLong();
    private final AtomicLong peakBlocks = new AtomicLong();
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong frees = new AtomicLong();
    private final AtomicLong ooms = new AtomicLong();
    private final AtomicLong addresses = new AtomicLong(0x1000);

    /**
     * Returns a new zero-filled host storage of {@code n} elements, counted and reported.
     *
     * @throws IllegalArgumentException if {@code n} is negative
     * @throws OutOfMemoryError if the heap cannot hold it; the message names the device, the request and the free
     *     heap, and the failure is counted and reported
     */
    Storage allocate(DType dtype, int n) {
        long bytes = 16L + (long) dtype.itemSize() * n;   // array header and payload, as the JVM lays arrays out
        Storage storage;
        try {
            storage = Storage.create(Device.CPU, dtype, n);
        } catch (OutOfMemoryError e) {
            ooms.incrementAndGet();
            long now = current.get();
            MemoryEvents.outOfMemory(DEVICE, -1, bytes, now, now);
            Runtime rt = Runtime.getRuntime();
            long free = rt.maxMemory() - rt.totalMemory() + rt.freeMemory();
            OutOfMemoryError error = new OutOfMemoryError(Device.CPU + ": cannot allocate " + bytes + " bytes ("
                    + n + " x " + dtype.profileName() + "); " + free + " bytes of the heap are free");
            error.initCause(e);
            throw error;
        }
        long address = addresses.getAndAdd(64);
        long now = current.addAndGet(bytes);
        peak.accumulateAndGet(now, Math::max);
        peakBlocks.accumulateAndGet(blocks.incrementAndGet(), Math::max);
        allocatedTotal.addAndGet(bytes);
        allocations.incrementAndGet();
        MemoryEvents.allocated(DEVICE, -1, address, bytes, now, now);
        CLEANER.register(storage, () -> freed(address, bytes));
        return storage;
    }

    private void freed(long address, long bytes) {
        long now = current.addAndGet(-bytes);
        blocks.decrementAndGet();
        freedTotal.addAndGet(bytes);
        frees.incrementAndGet();
        MemoryEvents.allocated(DEVICE, -1, address, -bytes, now, now);
    }

    @Override
    public String device() {
        return DEVICE;
    }

    /** The counters under torch's {@code memory_stats()} names. */
    @Override
    public MemoryStats stats() {
        Map<String, Long> v = new TreeMap<>();
        for (String kind : new String[] {"allocated_bytes", "reserved_bytes", "active_bytes"}) {
            v.put(kind + ".all.current", current.get());
            v.put(kind + ".all.peak", peak.get());
            v.put(kind + ".all.allocated", allocatedTotal.get());
            v.put(kind + ".all.freed", freedTotal.get());
        }
        v.put("allocation.all.current", blocks.get());
        v.put("allocation.all.peak", peakBlocks.get());
        v.put("allocation.all.allocated", allocations.get());
        v.put("allocation.all.freed", frees.get());
        v.put("num_alloc_retries", 0L);
        v.put("num_ooms", ooms.get());
        return new MemoryStats(DEVICE, v);
    }

    @Override
    public void resetPeakStats() {
        peak.set(current.get());
        peakBlocks.set(blocks.get());
    }
}
