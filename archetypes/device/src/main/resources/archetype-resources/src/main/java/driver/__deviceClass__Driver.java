package ${package}.driver;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.device.kit.DeviceDriver;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * The ${deviceType} runtime as this bundle uses it: device memory, streams, asynchronous kernel launches, copies and
 * fills, synchronisation, and (through {@link dev.vantage.device.kit.TracingDriver}) an activity-record buffer with
 * device timestamps. The bundle ships an emulated driver with a low service ranking; a native driver, published
 * as a {@code ${deviceClass}Driver} service of its own bundle with a higher ranking, takes over while the platform
 * runs and gives way again when it leaves. Launches and copies to the device return at once; a copy to the host
 * returns when its data is there. Thread-safe.
 */
@ConsumerType
public interface ${deviceClass}Driver extends DeviceDriver {

    /**
     * Allocates zero-filled device memory for {@code n} elements.
     *
     * @throws IllegalArgumentException if there is no such device
     * @throws OutOfMemoryError if the device has not enough free memory; the message names the device, the
     *     request and the free bytes
     */
    Storage malloc(int device, DType dtype, int n);

    /** Returns how many streams a device has; stream 0 is the default. */
    int streamCount(int device);

    /**
     * Queues the kernel of a runtime op on a stream; returns at once.
     *
     * @param op the op's kernel name, one of {@link dev.vantage.tensor.spi.KernelOps}
     * @param call the inputs, preallocated outputs and arguments, as {@code KernelOps} lays them out for the op
     */
    void launchKernel(int device, int stream, String op, KernelCall call);

    /**
     * Copies as {@code aten::copy_} between the device and the host or within the device: to the device it returns
     * at once, to the host when the data is there.
     */
    void memcpyAsync(int device, int stream, KernelCall call);

    /** Fills as {@code aten::zero_}; returns at once. */
    void memsetAsync(int device, int stream, KernelCall call);
}
