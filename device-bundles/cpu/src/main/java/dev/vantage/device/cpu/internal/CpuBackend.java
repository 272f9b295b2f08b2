package dev.vantage.device.cpu.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/**
 * The host backend: real kernels on the JVM's own threads, and the tracked allocator of every host tensor. The
 * kernels live in one class per family ({@link PointwiseKernels}, {@link CopyKernels}, {@link ReductionKernels},
 * {@link LinalgKernels}, {@link ConvKernels}, {@link PoolKernels}, {@link NnKernels}, {@link IndexKernels}) and are
 * stateless, so any number of threads may run them. Products and convolutions run on a fork/join pool sized to the
 * cores, which the component starts when it activates and stops when it deactivates; before and after, they run on
 * the caller's thread.
 *
 * <p>Memory: every tensor the runtime allocates on the host, of any dtype, gets its storage in {@link #allocate},
 * which counts bytes and blocks as torch's {@code memory_stats()} does and reports each allocation and free to the
 * profiler through {@link MemoryEvents} (the component is the device's {@link MemoryAllocator} too). A block is freed
 * when the runtime releases its storage (the last tensor using it was closed), or, for a storage nobody closed, when
 * the garbage collector finds it (on the runtime's collector thread). Host memory is not reserved ahead, so reserved
 * equals allocated. Counters and reports change together under this object's monitor, as a device allocator's do,
 * so that the {@code Total Allocated} of every {@code [memory]} event is the running sum of the events before it,
 * whichever thread allocates or frees: an allocation takes the monitor once, after its array exists. Addresses are
 * handed out by an atomic counter before, so that a failed allocation counts nothing.
 */
@Component(service = {Backend.class, HostKernels.class, MemoryAllocator.class})
public class CpuBackend implements Backend, HostKernels, MemoryAllocator {

    private static final String DEVICE = "cpu";

    private ForkJoinPool pool;
    private volatile MatmulKernel matmul = new MatmulKernel(null);
    private volatile Map<String, Kernel> kernels;

    // guarded by this
    private long current;
    private long peak;
    private long allocatedTotal;
    private long freedTotal;
    private long blocks;
    private long peakBlocks;
    private long allocations;
    private long frees;
    private long ooms;
    /** Not guarded: the next block's address. */
    private final AtomicLong nextAddress;

    /**
     * Creates the backend and starts its fork/join pool; its blocks' addresses start at 0x1000. Public so that tests
     * of other modules (the device contract suite, the workloads) can run the real kernels outside OSGi.
     */
    @Activate
    public CpuBackend() {
        this(0x1000);
    }

    /** A backend whose addresses start elsewhere, so a test can tell its reports from other allocators'. */
    CpuBackend(long firstAddress) {
        this.nextAddress = new AtomicLong(firstAddress);
        pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors(), p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("vantage-cpu-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
        }, null, false);
        matmul = new MatmulKernel(pool);
    }

    /** Stops the pool; products run on the caller's thread afterwards. */
    @Deactivate
    public void deactivate() {
        matmul = new MatmulKernel(null);
        pool.shutdown();
    }

    @Override
    public String deviceType() {
        return "cpu";
    }

    @Override
    public DispatchKey dispatchKey() {
        return DispatchKey.CPU;
    }

    @Override
    public boolean emulated() {
        return false;
    }

    /**
     * Returns a new zero-filled host storage of {@code n} elements, counted and reported.
     *
     * @throws IllegalArgumentException if the device is not {@code cpu:0}, or {@code n} is negative
     * @throws OutOfMemoryError if the heap cannot hold it; the message names the device, the request and the free
     *     heap, and the failure is counted and reported
     */
    @Override
    public Storage allocate(Device device, DType dtype, int n) {
        if (device != Device.CPU && !Device.CPU.equals(device)) {
            throw new IllegalArgumentException("the cpu backend cannot allocate on device " + device
                    + "; it has only " + Device.CPU);
        }
        long bytes = 16L + (long) dtype.itemSize() * n;   // array header and payload, as the JVM lays arrays out
        long address = nextAddress.getAndAdd(64);
        Storage storage;
        try {
            storage = Storage.create(Device.CPU, dtype, n, null, address, () -> freed(address, bytes));
        } catch (OutOfMemoryError e) {
            long now;
            synchronized (this) {
                ooms++;
                now = current;
                MemoryEvents.outOfMemory(DEVICE, -1, bytes, now, now);
            }
            Runtime rt = Runtime.getRuntime();
            long free = rt.maxMemory() - rt.totalMemory() + rt.freeMemory();
            OutOfMemoryError error = new OutOfMemoryError(Device.CPU + ": cannot allocate " + bytes + " bytes ("
                    + n + " x " + dtype.profileName() + "); " + free + " bytes of the heap are free");
            error.initCause(e);
            throw error;
        }
        // counted once the array exists, so a failure counts nothing
        synchronized (this) {
            current += bytes;
            peak = Math.max(peak, current);
            blocks++;
            peakBlocks = Math.max(peakBlocks, blocks);
            allocatedTotal += bytes;
            allocations++;
            MemoryEvents.allocated(DEVICE, -1, address, bytes, current, current);
        }
        return storage;
    }

    private synchronized void freed(long address, long bytes) {
        current -= bytes;
        blocks--;
        freedTotal += bytes;
        frees++;
        MemoryEvents.allocated(DEVICE, -1, address, -bytes, current, current);
    }

    /**
     * Returns this backend's kernel of an op, for devices that compute on the host; the kernels are registered once,
     * on first use.
     */
    @Override
    public Kernel kernel(String op) {
        Map<String, Kernel> table = kernels;
        if (table == null) {
            Map<String, Kernel> built = new HashMap<>();
            registerKernels(new KernelRegistry() {
                @Override
                public Set<String> ops() {
                    return new TreeSet<>(KernelOps.ALL);
                }

                @Override
                public void register(String name, Kernel kernel) {
                    built.put(name, kernel);
                }
            });
            kernels = table = Map.copyOf(built);
        }
        Kernel k = table.get(op);
        if (k == null) {
            throw new IllegalArgumentException("no host kernel named '" + op + "'");
        }
        return k;
    }

    /** Registers a kernel for every op of {@link KernelOps}; products read the current pool per call. */
    @Override
    public void registerKernels(KernelRegistry registry) {
        PointwiseKernels.register(registry);
        CopyKernels.register(registry);
        ReductionKernels.register(registry);
        LinalgKernels.register(registry, () -> matmul);
        ConvKernels.register(registry, () -> matmul);
        PoolKernels.register(registry);
        NnKernels.register(registry);
        IndexKernels.register(registry);
    }

    @Override
    public String device() {
        return DEVICE;
    }

    /** The counters under torch's {@code memory_stats()} names. */
    @Override
    public synchronized MemoryStats stats() {
        Map<String, Long> v = new TreeMap<>();
        for (String kind : new String[] {"allocated_bytes", "reserved_bytes", "active_bytes"}) {
            v.put(kind + ".all.current", current);
            v.put(kind + ".all.peak", peak);
            v.put(kind + ".all.allocated", allocatedTotal);
            v.put(kind + ".all.freed", freedTotal);
        }
        v.put("allocation.all.current", blocks);
        v.put("allocation.all.peak", peakBlocks);
        v.put("allocation.all.allocated", allocations);
        v.put("allocation.all.freed", frees);
        v.put("num_alloc_retries", 0L);
        v.put("num_ooms", ooms);
        return new MemoryStats(DEVICE, v);
    }

    @Override
    public synchronized void resetPeakStats() {
        peak = current;
        peakBlocks = blocks;
    }
}
