package dev.vantage.device.cpu.host;

import dev.vantage.device.cpu.internal.CpuBackend;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.HostKernels;

/**
 * The CPU backend, which is its own allocator, outside a framework, as Declarative Services makes it in the platform:
 * for a device bundle's unit tests and the device contract suite, where an accelerator's tensors come from and go
 * back to the host and an emulated device computes with the host's kernels. Install {@link #backend()} with
 * {@code dev.vantage.tensor.spi.Backends}; {@link #close()} stops its worker threads.
 */
public final class CpuHost implements AutoCloseable {

    private final CpuBackend backend = new CpuBackend();

    private CpuHost() {
    }

    /** Creates the CPU backend; nothing is installed yet. */
    public static CpuHost open() {
        return new CpuHost();
    }

    /** Returns the CPU backend. */
    public Backend backend() {
        return backend;
    }

    /** Returns the CPU backend's kernels, as the platform offers them to devices that compute on the host. */
    public HostKernels kernels() {
        return backend;
    }

    /** Returns the host allocator, which reports host tensor storage: the backend itself. */
    public MemoryAllocator allocator() {
        return backend;
    }

    /** Stops the backend's worker threads. */
    @Override
    public void close() {
        backend.deactivate();
    }
}
