package dev.vantage.device.cpu.internal;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * The host backend: real kernels on the JVM's own threads, their outputs allocated by the bundle's
 * {@link HostAllocator}. Matmul runs on a fork/join pool sized to the cores, which the component starts when it
 * activates and stops when it deactivates.
 */
@Component(service = Backend.class)
public class CpuBackend implements Backend {

    /** Where kernel outputs are allocated, counted and reported. */
    @Reference
    private HostAllocator memory;

    private ForkJoinPool pool;
    private volatile MatmulKernel matmul = new MatmulKernel(null);

    @Activate
    void activate() {
        pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors(), p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            t.setName("vantage-cpu-" + t.getPoolIndex());
            t.setDaemon(true);
            return t;
        }, null, false);
        matmul = new MatmulKernel(pool);
    }

    @Deactivate
    void deactivate() {
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

    @Override
    public void registerKernels(KernelRegistry registry) {
        registry.binary("aten::add", (a, b) -> CpuKernels.add(memory, a, b));
        registry.binary("aten::mul", (a, b) -> CpuKernels.mul(memory, a, b));
        registry.binary("aten::matmul", (a, b) -> CpuKernels.matmul(memory, matmul, a, b));
        registry.unary("aten::sum", a -> CpuKernels.sum(memory, a));
    }
}
