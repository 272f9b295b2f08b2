package dev.vantage.tensor.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A device kernel of one op, registered under a name of {@link KernelOps}. The runtime has already checked the
 * inputs, computed the output shapes and allocated the outputs (contiguous, on this backend's device, through
 * {@link Backend#allocate}); the kernel computes the values into them. Inputs may be views with any strides.
 * Thread-safe: may be called from many threads at once.
 */
@ConsumerType
@FunctionalInterface
public interface Kernel {

    /**
     * Computes the op's outputs.
     *
     * @param call the inputs, outputs and scalar arguments, laid out as {@link KernelOps} documents for the op
     */
    void run(KernelCall call);
}
