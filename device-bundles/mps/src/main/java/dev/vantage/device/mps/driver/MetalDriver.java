package dev.vantage.device.mps.driver;

import java.util.function.Consumer;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.device.kit.DeviceDriver;
import dev.vantage.device.kit.TracingDriver;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * An MPS runtime, as Metal and Metal Performance Shaders expose it: buffers in unified memory, a pool of streams
 * (each a command queue) handed out to threads, work encoded into a stream's open command buffer, committed at
 * synchronisation points and run by the GPU in commit order, and (through {@link TracingDriver}) an
 * activity-record buffer with device timestamps, named as {@link MetalRecords} says. Encoding returns at once and
 * runs nothing; a copy to the host commits and waits. Work on one stream that uses a buffer another stream's
 * command buffer writes waits for that command buffer, which is committed first if still open. Thread-safe:
 * threads encoding on different streams do not wait for each other.
 *
 * <p>Streams are addressed by their index in the pool, from 0, the default stream; records and traces show a
 * stream by the id the driver gives it (the emulated driver's ids are the index plus one, since trace analysis
 * counts only streams above 0 as device streams).
 */
@ConsumerType
public interface MetalDriver extends DeviceDriver {

    /**
     * Allocates a zero-filled buffer for {@code n} elements in the device's share of unified memory.
     *
     * @throws IllegalArgumentException if there is no such device
     * @throws OutOfMemoryError if the device may not take that much more memory; the message names the device,
     *     the request and the free bytes
     */
    Storage newBuffer(int device, DType dtype, int n);

    /** Returns the bytes tensors occupy, without cached memory: {@code torch.mps.current_allocated_memory()}. */
    long currentAllocatedMemory(int device);

    /**
     * Returns the bytes the driver holds for the process, cached heaps included:
     * {@code torch.mps.driver_allocated_memory()}.
     */
    long driverAllocatedMemory(int device);

    /** Returns the working-set size the device recommends: {@code torch.mps.recommended_max_memory()}. */
    long recommendedMaxMemory(int device);

    /**
     * Returns a device's allocator counters under torch's {@code memory_stats()} names, with the three
     * unified-memory numbers as {@code current_allocated_memory}, {@code driver_allocated_memory} and
     * {@code recommended_max_memory}.
     */
    MemoryStats memoryStats(int device);

    /** Resets a device's peak counters. */
    void resetPeakMemoryStats(int device);

    /** Gives cached memory no tensor uses back to the system, as {@code torch.mps.empty_cache()}. */
    void emptyCache(int device);

    /** Returns how many streams a device's pool has; stream 0 is the default stream. */
    int streamCount(int device);

    /**
     * Returns the calling thread's stream: the same stream every time on one thread; distinct streams for distinct
     * threads while there are fewer threads than streams.
     */
    int currentStream(int device);

    /**
     * Encodes a kernel into a stream's open command buffer; returns at once.
     *
     * @param call the inputs, preallocated outputs and arguments, as {@link dev.vantage.tensor.spi.KernelOps}
     *     lays them out for {@code kernel.op()}
     * @param sync what to do with the buffer afterwards
     */
    void encodeKernel(int device, int stream, MetalKernel kernel, KernelCall call, SyncType sync);

    /**
     * Encodes a copy with {@code aten::copy_} semantics, between the device and the host or within the device. To
     * the device, the host values are taken at once and {@code sync} applies; to the host, the buffer is always
     * committed and the call returns when the values are there.
     *
     * @throws RuntimeException a pending asynchronous failure of the stream, when copying to the host
     */
    void encodeCopy(int device, int stream, KernelCall call, SyncType sync);

    /** Encodes a fill as {@code aten::zero_}; returns at once, then does what {@code sync} says. */
    void encodeFill(int device, int stream, KernelCall call, SyncType sync);

    /**
     * Commits a stream's open command buffer as {@code sync} says. {@link SyncType#COMMIT_AND_WAIT} returns when
     * everything committed to the stream has finished, even when no buffer was open.
     *
     * @throws RuntimeException a pending asynchronous failure of the stream, when waiting
     */
    void commit(int device, int stream, SyncType sync);

    /** Returns how many commands a stream's open command buffer holds; 0 when none is open. */
    int openCommands(int device, int stream);

    /**
     * Adds a handler called, on the GPU's side, after each command buffer of a device finishes; it must be quick
     * and must not throw.
     */
    void addCompletedHandler(int device, Consumer<CompletedCommandBuffer> handler);

    /** Removes a handler added by {@link #addCompletedHandler}; does nothing if it is not there. */
    void removeCompletedHandler(int device, Consumer<CompletedCommandBuffer> handler);

    /** Returns the external correlation id on top of the calling thread's stack for a device, or -1. */
    default long externalCorrelation(int device) {
        return -1;
    }

    /**
     * Runs a collective's data movement on a device as communication work: in a command buffer of its own on the
     * pool's last stream, named {@code name}, carrying {@code args}, encoded with the runtime call {@code api}
     * and linked to the op that called the collective through its external correlation id ({@code -1} for none),
     * then waits for it. By default it runs the transfer on the calling thread, recording nothing.
     *
     * @throws RuntimeException what the transfer threw
     */
    default void runCollective(int device, long externalCorrelation, String api, String name,
            java.util.Map<String, String> args, Runnable transfer) {
        transfer.run();
    }

    /**
     * Commits every stream's open command buffer, then waits until all of the device's work has finished, or the
     * timeout passed.
     *
     * @return true if the device is idle, false on timeout
     * @throws RuntimeException a stream's pending asynchronous failure
     */
    @Override
    boolean synchronizeDevice(int device, long timeoutNanos);
}
