package dev.vantage.tensor.spi;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.tensor.DispatchKey;

/**
 * A device backend: registered as a service by a device bundle, it supplies the kernels of one dispatch key.
 * The runtime installs them when the service arrives and removes them when it leaves.
 */
@ConsumerType
public interface Backend {

    /** Returns the device type tensors of this backend carry, such as {@code cpu} or {@code npu}. */
    String deviceType();

    /** Returns the key the dispatcher selects this backend's kernels by. */
    DispatchKey dispatchKey();

    /** Returns true when the device is emulated in software rather than driven on real hardware. */
    boolean emulated();

    /** Registers every kernel this backend has. */
    void registerKernels(KernelRegistry registry);
}
