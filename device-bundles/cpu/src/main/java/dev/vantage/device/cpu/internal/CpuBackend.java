package dev.vantage.device.cpu.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

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
 * The host backend: real kernels on the JVM's own threads, every host tensor allocated by the bundle's
 * {@link HostAllocator}. The kernels live in one class per family ({@link PointwiseKernels}, {@link CopyKernels},
 * {@link ReductionKernels}, {@link LinalgKernels}, {@link ConvKernels}, {@link PoolKernels}, {@link NnKernels},
 * {@link IndexKernels}) and are stateless, so any number of threads may run them. Products and convolutions run
 * on a fork/join pool sized to the cores, which the component starts when it activates and stops when it
 * deactivates; before and after, they run on the caller's thread.
 */
@Component(service = {Backend.class, HostKernels.class})
public class CpuBackend implements Backend, HostKernels {

    /** Where host tensors are allocated, counted and reported. */
    private final HostAllocator memory;

    private ForkJoinPool pool;
    private volatile MatmulKernel matmul = new MatmulKernel(null);
    private volatile Map<String, Kernel> kernels;

    /**
     * Creates the backend and starts its fork/join pool; DS passes the bundle's allocator. Public so that tests of
     * other modules (the device contract suite, the workloads) can run the real kernels outside OSGi.
     */
    @Activate
    public CpuBackend(@Reference HostAllocator memory) {
        this.memory = memory;
        pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors(), p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("vantage-cpu-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
        }, null, false);
        matmul = new MatmulKernel(pool);
    }

    /** Returns the allocator host tensors are counted by. */
    public HostAllocator memory() {
        return memory;
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
     * Allocates zero-filled host memory through the bundle's allocator.
     *
     * @throws IllegalArgumentException if the device is not {@code cpu:0}
     */
    @Override
    public Storage allocate(Device device, DType dtype, int size) {
        if (device != Device.CPU && !Device.CPU.equals(device)) {
            throw new IllegalArgumentException("the cpu backend cannot allocate on device " + device
                    + "; it has only " + Device.CPU);
        }
        return memory.allocate(dtype, size);
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
}
