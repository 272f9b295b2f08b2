package dev.vantage.device.mps.driver;

/**
 * A command buffer that finished on the GPU, as a Metal completed handler sees it.
 *
 * @param device the device
 * @param stream the index of the stream (command queue) it ran on, as {@link MetalDriver} numbers streams
 * @param id the buffer's id, unique on its device; the {@link MetalRecords#COMMAND_BUFFER} arg of its records
 * @param commands how many commands were encoded into it
 * @param gpuStartTime when the GPU started it, in device clock ticks
 * @param gpuEndTime when the GPU finished it, in device clock ticks; its commands ran in between
 * @param error why it failed, or null when it completed
 */
public record CompletedCommandBuffer(int device, int stream, long id, int commands, long gpuStartTime,
        long gpuEndTime, String error) {

    /** Checks the times. */
    public CompletedCommandBuffer {
        if (gpuEndTime < gpuStartTime) {
            throw new IllegalArgumentException("command buffer " + id + " ends before it starts");
        }
    }

    /** Returns true when every command ran. */
    public boolean completed() {
        return error == null;
    }

    /** Returns the GPU time in device clock ticks. */
    public long gpuTicks() {
        return gpuEndTime - gpuStartTime;
    }
}
