package dev.vantage.tensor.spi;

import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where a {@link Backend} registers its kernels, for its own dispatch key. Handed to
 * {@link Backend#registerKernels}; use it only during that call.
 */
@ProviderType
public interface KernelRegistry {

    /** Returns the names of the ops the runtime declares, such as {@code aten::add}. */
    Set<String> ops();

    /**
     * Registers the kernel of a two-input op.
     *
     * @throws IllegalArgumentException if no such op is declared or it does not take two tensors
     */
    void binary(String op, BinaryKernel kernel);

    /**
     * Registers the kernel of a one-input op.
     *
     * @throws IllegalArgumentException if no such op is declared or it does not take one tensor
     */
    void unary(String op, UnaryKernel kernel);
}
