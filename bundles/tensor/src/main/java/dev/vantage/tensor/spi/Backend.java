package dev.vantage.tensor.spi;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;

/**
 * A device backend: registered as a service by a device bundle, it supplies the kernels of one dispatch key and
 * the memory of its device. The runtime installs it when the service arrives and removes it when it leaves.
 *
 * <p>A backend for another device must register {@link KernelOps#COPY_}, which copies between its device and
 * the host in both directions: the runtime uses it for {@code to(device)} and for the CPU fallback. A device
 * whose kernels run asynchronously must finish a copy to the host before {@code copy_} returns, since the runtime
 * reads host memory right after it; the runtime reads a device's memory in no other way.
 */
@ConsumerType
public interface Backend {

    /** Returns the device type tensors of this backend carry, such as {@code cpu} or {@code npu}. */
    String deviceType();

    /** Returns the key the dispatcher selects this backend's kernels by. */
    DispatchKey dispatchKey();

    /**
     * Returns the name the dispatch key is shown under: the key's own name, or for {@link DispatchKey#PrivateUse1}
     * the name the backend renames it to, such as {@code spyre}.
     */
    default String dispatchKeyName() {
        return dispatchKey().name();
    }

    /** Returns true when the device is emulated in software rather than driven on real hardware. */
    boolean emulated();

    /** Returns how many devices of this type there are; indices run from 0. */
    default int deviceCount() {
        return 1;
    }

    /**
     * Allocates zero-filled memory for a tensor on one of this backend's devices, counted by its allocator.
     *
     * @throws IllegalArgumentException if the device is not one of this backend's
     * @throws OutOfMemoryError if the device has not enough free memory; the message names the device, the
     *     request and the free bytes
     */
    Storage allocate(Device device, DType dtype, int size);

    /**
     * Waits until all work launched on a device has finished, as {@code torch.npu.synchronize()}. A backend whose
     * kernels run synchronously on the calling thread has nothing to wait for.
     *
     * @throws IllegalArgumentException if the device is not one of this backend's
     * @throws RuntimeException if work launched earlier failed on the device; the message names the device, the
     *     stream and the kernel
     */
    default void synchronize(Device device) {
    }

    /** Registers every kernel this backend has. */
    void registerKernels(KernelRegistry registry);
}
