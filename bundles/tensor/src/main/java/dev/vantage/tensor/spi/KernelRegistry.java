package dev.vantage.tensor.spi;

import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a {@link Backend} registers its kernels, for its own dispatch key. Handed to
 * {@link Backend#registerKernels}; use it only during that call.
 */
@ProviderType
public interface KernelRegistry {

    /** Returns the names of the kernels the runtime declares: the constants of {@link KernelOps}. */
    Set<String> ops();

    /**
     * Registers the kernel of one op. An op a backend does not register runs on the CPU backend, with its inputs
     * copied to the host and its outputs copied back; the copies show in profiles.
     *
     * @param op a name from {@link KernelOps}
     * @throws IllegalArgumentException if no such kernel is declared
     */
    void register(String op, Kernel kernel);
}
