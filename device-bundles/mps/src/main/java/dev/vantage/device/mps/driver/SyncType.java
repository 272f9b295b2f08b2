package dev.vantage.device.mps.driver;

/**
 * What happens to a stream's open command buffer after work is encoded into it, as {@code MPSStream}'s
 * {@code SyncType} says.
 */
public enum SyncType {
    /** The buffer stays open; more work is encoded into it. */
    NONE,
    /** The buffer is committed: it is queued to run on the GPU, and the call returns. */
    COMMIT,
    /** The buffer is committed and the call returns when the stream has finished all its work. */
    COMMIT_AND_WAIT,
    /**
     * The buffer is committed when the driver judges it full enough; the emulated driver commits a buffer holding
     * its configured number of commands.
     */
    COMMIT_ADAPTIVE
}
