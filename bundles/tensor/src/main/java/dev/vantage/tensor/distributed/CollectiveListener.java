package dev.vantage.tensor.distributed;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Observes collectives, for a profiler: added with {@link CollectiveEvents#addListener}. Called on the group's
 * communication thread, around the collective's execution; it must be quick and must not call collectives. An
 * exception it throws is dropped and does not affect the collective.
 */
@ConsumerType
public interface CollectiveListener {

    /** A collective starts running; {@code info.endNanos()} is -1. */
    void started(CollectiveInfo info);

    /**
     * A collective has finished.
     *
     * @param info what ran, with its end time
     * @param failure why it failed, or null when it succeeded
     */
    void completed(CollectiveInfo info, Throwable failure);
}
