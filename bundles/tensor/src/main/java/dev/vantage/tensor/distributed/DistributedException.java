package dev.vantage.tensor.distributed;

/**
 * A collective or a rendezvous failed: a peer closed its connection, did not answer within the group's timeout,
 * or called another collective. The message names this rank, the peer rank and the collective, such as
 * {@code rank 0: allreduce timed out after 60 s waiting for rank 3}. A group that threw one is broken: every later
 * collective on it fails at once.
 */
public class DistributedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates an exception with its one-line message. */
    public DistributedException(String message) {
        super(message);
    }

    /** Creates an exception with its one-line message and what caused it. */
    public DistributedException(String message, Throwable cause) {
        super(message, cause);
    }
}
