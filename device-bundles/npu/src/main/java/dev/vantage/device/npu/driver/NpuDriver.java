package dev.vantage.device.npu.driver;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.device.kit.DeviceDriver;
import dev.vantage.device.kit.TracingDriver;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * An NPU runtime, as ACL exposes it: device memory, streams with task queues, asynchronous launches of typed
 * kernels, asynchronous copies and fills, synchronisation, and (through {@link TracingDriver}) an activity-record
 * buffer with device timestamps. Launches and copies to the device return at once; a copy to the host returns
 * when its data is there. Thread-safe.
 */
@ConsumerType
public interface NpuDriver extends DeviceDriver {

    /**
     * Allocates zero-filled device memory for {@code n} elements from the device's caching allocator (blocks of
     * multiples of 512 bytes carved from 2 MiB and 20 MiB segments, as torch's).
     *
     * @throws IllegalArgumentException if there is no such device
     * @throws OutOfMemoryError if the device has not enough free memory; the message names the device, the
     *     request and the free bytes
     */
    Storage malloc(int device, DType dtype, int n);

    /** Returns how many streams a device has; stream 0 is the default. */
    int streamCount(int device);

    /**
     * Queues a kernel on a stream; returns at once.
     *
     * @param call the inputs, preallocated outputs and arguments, as {@link dev.vantage.tensor.spi.KernelOps}
     *     lays them out for {@code kernel.op()}
     */
    void launchKernel(int device, int stream, NpuKernel kernel, KernelCall call);

    /**
     * Copies as {@code aten::copy_} between the device and the host or within the device: to the device it returns
     * at once, to the host when the data is there.
     *
     * @throws RuntimeException a pending asynchronous failure of the stream, when copying to the host
     */
    void memcpyAsync(int device, int stream, KernelCall call);

    /** Fills as {@code aten::zero_} (no scalar) or {@code aten::fill_}; returns at once. */
    void memsetAsync(int device, int stream, KernelCall call);

    /**
     * Returns the device runtime's external correlation id on top of the calling thread's stack (the op running
     * on it now, while a profile records the device), or -1. By default -1.
     */
    default long externalCorrelation(int device) {
        return -1;
    }

    /**
     * Runs a collective's data movement as an HCCL task on the device's communication stream and returns when it
     * has run: recorded as a kernel of that name and arguments, launched by a runtime call linked to the op whose
     * external correlation id is given (or none for -1). By default it runs the transfer on the calling thread,
     * recording nothing.
     *
     * @throws RuntimeException what the transfer threw
     */
    default void runCollective(int device, long externalCorrelation, String api, String name,
            java.util.Map<String, String> args, Runnable transfer) {
        transfer.run();
    }
}
