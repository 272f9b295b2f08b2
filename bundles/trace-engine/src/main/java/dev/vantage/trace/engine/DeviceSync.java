package dev.vantage.trace.engine;

/**
 * A synchronisation the device recorded (Kineto's {@code cuda_sync} events, since PyTorch 2.1 with CUPTI's
 * synchronisation records): a host thread waiting for a stream ({@code Stream Sync}), for the whole device ({@code
 * Context Sync}) or for an event ({@code Event Sync}), or a stream waiting for an event recorded on another ({@code
 * Stream Wait Event}). The critical path follows them from the device work they waited for to the call that waited.
 *
 * @param name the kind, as Kineto names it ({@code Stream Sync}, {@code Context Sync}, {@code Event Sync}, {@code
 *     Stream Wait Event})
 * @param deviceIndex the device
 * @param stream the stream that synchronised, or -1 for a wait of the host on the device or an event
 * @param startNanos the start
 * @param endNanos the end
 * @param correlation the runtime call that synchronised ({@code cudaStreamSynchronize}, {@code cudaDeviceSynchronize},
 *     {@code cudaEventSynchronize}, {@code cudaStreamWaitEvent}), by its correlation; -1 for none
 * @param waitOnStream the stream the awaited event was recorded on, or -1
 * @param waitOnEventRecord the correlation of the {@code cudaEventRecord} call that recorded the awaited event, or -1
 */
public record DeviceSync(String name, int deviceIndex, long stream, long startNanos, long endNanos, long correlation,
        long waitOnStream, long waitOnEventRecord) {
}
