package dev.vantage.tensor.distributed;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A collective started by an async method of {@link ProcessGroup}, like torch's {@code Work}. The group runs its
 * collectives one after another, in the order they were called, on its communication thread; the tensors given
 * must not be read or written until the work is complete. Named {@code await} rather than torch's {@code wait},
 * which {@link Object} takes.
 */
@ProviderType
public interface Work {

    /**
     * Waits until the collective is done; its results are then in the output tensors.
     *
     * @throws DistributedException if the collective failed or timed out; the message names this rank, the peer
     *     and the collective
     */
    void await();

    /** Returns true once the collective has finished, successfully or not; never blocks. */
    boolean isCompleted();
}
