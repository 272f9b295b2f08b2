package dev.vantage.tensor.distributed;

import java.util.concurrent.CountDownLatch;

/** The {@link Work} of one collective: completed once by the communication thread, awaited by anyone. */
final class CollectiveWork implements Work {

    private final Collective collective;
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile DistributedException failure;
    /** What the communication thread died of when it could not even make the failure, or null. */
    private volatile Throwable died;

    CollectiveWork(Collective collective) {
        this.collective = collective;
    }

    /**
     * Completes the work: successfully when both are null.
     *
     * @param f the collective's failure, or null
     * @param cause what the communication thread died of, when it could not make {@code f}; else null
     */
    void complete(DistributedException f, Throwable cause) {
        failure = f;
        died = cause;
        done.countDown();
    }

    @Override
    public void await() {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DistributedException("interrupted waiting for " + collective.name() + " #"
                    + collective.sequence(), e);
        }
        DistributedException f = failure;
        if (f != null) {
            // a new exception, so the stack trace shows the waiting caller; the message stays the one-liner
            throw new DistributedException(f.getMessage(), f);
        }
        Throwable cause = died;
        if (cause != null) {
            throw new DistributedException(collective.name() + " #" + collective.sequence() + " failed: " + cause,
                    cause);
        }
    }

    @Override
    public boolean isCompleted() {
        return done.getCount() == 0;
    }

    @Override
    public String toString() {
        return collective.name() + " #" + collective.sequence() + (isCompleted() ? " (completed)" : "");
    }
}
