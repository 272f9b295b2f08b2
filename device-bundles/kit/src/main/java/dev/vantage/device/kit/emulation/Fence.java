package dev.vantage.device.kit.emulation;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A point in a stream's work that other streams can wait for: the work that last wrote a block of device memory.
 */
@ConsumerType
public interface Fence {

    /** Returns the stream the work belongs to. */
    EmulatedStream stream();

    /**
     * Makes sure the work is on its way: a command buffer still being encoded is committed. Called on the host
     * thread that is about to launch dependent work.
     */
    void submit();

    /**
     * Waits until the work has finished; called on a worker thread of another stream.
     *
     * @throws IllegalStateException if the work's stream died before it ran (its cause says of what)
     */
    void await();
}
