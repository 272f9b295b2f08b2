package dev.vantage.device.mps.driver;

/**
 * The names a {@link MetalDriver} gives its activity records, so that sessions, exporters and tests read every
 * driver's records alike.
 *
 * <p>Runtime records (host clock, on the calling thread): one per encode call, named by what was encoded, whose
 * correlation id joins it to the one device record of the command it encoded; and one per commit, named
 * {@link #COMMIT}, with a correlation id of its own and no device record. Device records (device clock): one per
 * command, kernel, copy or fill, timed inside its command buffer, with the {@link #COMMAND_BUFFER} arg.
 */
public final class MetalRecords {

    /** Runtime record of encoding a Metal compute kernel. */
    public static final String DISPATCH = "MTLComputeCommandEncoder.dispatchThreads";
    /** Runtime record of encoding an MPSGraph executable. */
    public static final String ENCODE_GRAPH = "MPSGraph.encodeToCommandBuffer";
    /** Runtime record of encoding a copy. */
    public static final String BLIT_COPY = "MTLBlitCommandEncoder.copyFromBuffer";
    /** Runtime record of encoding a fill. */
    public static final String BLIT_FILL = "MTLBlitCommandEncoder.fillBuffer";
    /**
     * Runtime record of committing a command buffer, on the thread that committed it; for a commit that waits,
     * its end is when the wait ended. Args: {@link #COMMAND_BUFFER}, {@link #COMMANDS}, {@link #TRIGGER}.
     */
    public static final String COMMIT = "MTLCommandBuffer.commit";

    /** Arg: the id of the command buffer a command was encoded into, or that was committed. */
    public static final String COMMAND_BUFFER = "command buffer";
    /** Arg of a commit: how many commands the buffer holds. */
    public static final String COMMANDS = "commands";
    /**
     * Arg of a commit: what committed the buffer: {@code adaptive} (it was full enough), {@code commit} (asked),
     * {@code wait} (asked, and waited for), {@code dependency} (work on another stream needed its results),
     * {@code synchronize} (a device synchronisation) or {@code close} (the driver shut down).
     */
    public static final String TRIGGER = "trigger";

    private MetalRecords() {
    }
}
