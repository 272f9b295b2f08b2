package dev.vantage.device.spyre.driver;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.kit.DeviceDriver;
import dev.vantage.device.kit.TracingDriver;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * A Spyre runtime: device memory from a VF-style block allocator, streams, asynchronous compute launches,
 * DMA copies and fills, synchronisation, and a tracing library loaded on demand. Thread-safe.
 *
 * <p><b>Lazy initialisation.</b> Creating a driver touches no device. A device initialises at its first use, an
 * allocation or a launch (or {@link #initialize}); until then it has no streams running and no memory reserved.
 * Queries that need no device (counts, properties, memory statistics, synchronisation, clock reads) leave it
 * uninitialised. If a profile is recording when a device initialises, the initialisation appears once in the
 * trace as a runtime call.
 *
 * <p><b>Lazy tracing.</b> The tracing library is loaded at the first {@link #tracing()} call, which the bundle
 * makes when the first profile asks for device activity, never when the bundle starts. The {@link TracingDriver}
 * methods delegate to it: those that start a session load it, and the rest do nothing before it is loaded.
 *
 * <p>Launches, fills and copies to the device return at once; a copy to the host returns when its data is there.
 * Work runs on the stream named by the call; {@link #currentStream} is the calling thread's choice.
 */
@ConsumerType
public interface SpyreDriver extends DeviceDriver {

    /**
     * Returns true once a device has initialised.
     *
     * @throws IllegalArgumentException if there is no such device
     */
    boolean initialized(int device);

    /**
     * Initialises a device now, if it has not yet; otherwise its first allocation or launch does.
     *
     * @throws IllegalArgumentException if there is no such device
     * @throws IllegalStateException if the driver was closed
     */
    void initialize(int device);

    /**
     * Allocates zero-filled device memory for {@code n} elements, 128-byte aligned, reserved in segments;
     * initialises the device if needed.
     *
     * @throws IllegalArgumentException if there is no such device
     * @throws OutOfMemoryError if the device has not enough free memory; the message names the device, the
     *     request and the free bytes
     */
    Storage malloc(int device, DType dtype, int n);

    /** Returns a device's allocator counters under torch's {@code memory_stats()} names; zeros before init. */
    MemoryStats memoryStats(int device);

    /** Resets a device's peak counters. */
    void resetPeakMemoryStats(int device);

    /** Returns how many streams a device has; stream 0 is the default. */
    int streamCount(int device);

    /** Returns the calling thread's current stream on a device; 0, the default stream, until it sets another. */
    int currentStream(int device);

    /**
     * Sets the calling thread's current stream on a device.
     *
     * @throws IllegalArgumentException if there is no such device or stream
     */
    void setCurrentStream(int device, int stream);

    /**
     * Queues a compiled kernel on a stream ({@code aiuLaunchComputeStream}); returns at once.
     *
     * @param call the inputs, preallocated outputs and arguments, as {@link dev.vantage.tensor.spi.KernelOps}
     *     lays them out for {@code kernel.op()}
     */
    void launchCompute(int device, int stream, SpyreKernel kernel, KernelCall call);

    /**
     * Copies by DMA as {@code aten::copy_} between the device and the host or within the device
     * ({@code aiuDataTransferHtoD}, {@code aiuDataTransferDtoH}): to the device it returns at once, to the host
     * when the data is there.
     *
     * @throws RuntimeException a pending asynchronous failure of the stream, when copying to the host
     */
    void memcpyAsync(int device, int stream, KernelCall call);

    /**
     * Fills by DMA as {@code aten::zero_} or {@code aten::fill_} (the value is {@code call.scalar(0)}); returns at
     * once.
     *
     * @throws IllegalArgumentException if the call is neither
     */
    void memsetAsync(int device, int stream, KernelCall call);

    /**
     * Runs a collective's data movement on a device as communication work: on the card's communication stream,
     * named {@code name}, carrying {@code args}, linked to the op that called the collective through its external
     * correlation id ({@code -1} for none), and waits for it. By default it runs the transfer on the calling
     * thread, recording nothing.
     *
     * @throws RuntimeException what the transfer threw
     */
    default void runCollective(int device, long externalCorrelation, String api, String name,
            java.util.Map<String, String> args, Runnable transfer) {
        transfer.run();
    }

    /**
     * Returns the tracing library, loading it at the first call. A failed load is not retried.
     *
     * @throws SpyreTracingUnavailableException if the library is not installed or failed to load
     */
    SpyreTracing tracing();

    /** Returns true once the tracing library has been loaded; never loads it. */
    boolean tracingLoaded();

    /** Loads the tracing library if needed and enables it; see {@link SpyreTracing#enableActivity}. */
    @Override
    default void enableActivity(long maxRecords) {
        tracing().enableActivity(maxRecords);
    }

    @Override
    default void disableActivity() {
        if (tracingLoaded()) {
            tracing().disableActivity();
        }
    }

    @Override
    default List<ActivityRecord> flushActivity() {
        return tracingLoaded() ? tracing().flushActivity() : List.of();
    }

    @Override
    default long droppedRecords() {
        return tracingLoaded() ? tracing().droppedRecords() : 0;
    }

    /** Pushes on the tracing library's stack; before it is loaded there is nothing to correlate. */
    @Override
    default void pushExternalCorrelation(long id) {
        if (tracingLoaded()) {
            tracing().pushExternalCorrelation(id);
        }
    }

    @Override
    default void popExternalCorrelation() {
        if (tracingLoaded()) {
            tracing().popExternalCorrelation();
        }
    }

    /** Reads the clock through the tracing library, loading it if needed. */
    @Override
    default long deviceTimestamp(int device) {
        return tracing().deviceTimestamp(device);
    }

    @Override
    default long timestampFrequency(int device) {
        return tracing().timestampFrequency(device);
    }
}
