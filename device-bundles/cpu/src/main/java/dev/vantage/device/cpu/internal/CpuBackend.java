package dev.vantage.device.cpu.internal;

import org.osgi.service.component.annotations.Component;

import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelRegistry;

/** The host backend: real kernels on the JVM's own threads. */
@Component(service = Backend.class)
public class CpuBackend implements Backend {

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
        registry.binary("aten::add", CpuKernels::add);
        registry.binary("aten::mul", CpuKernels::mul);
        registry.binary("aten::matmul", CpuKernels::matmul);
        registry.unary("aten::sum", CpuKernels::sum);
    }
}
