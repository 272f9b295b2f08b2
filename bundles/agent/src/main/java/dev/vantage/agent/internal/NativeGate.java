package dev.vantage.agent.internal;

/**
 * The agent's calls into the application's ONNX Runtime (making, running and ending profiling sessions) pass this
 * gate, which closes when the application exits: from then on such calls are refused, and {@link #close} waits for
 * those under way, so that no thread of the agent is inside ONNX Runtime's natives when the process exits (their
 * exit handlers tear ONNX Runtime down under it). Thread-safe.
 */
final class NativeGate {

    private int inside;
    private boolean closed;

    /**
     * Lets a call in.
     *
     * @throws IllegalStateException once the gate is closed: the application exits
     */
    synchronized void enter() {
        if (closed) {
            throw new IllegalStateException("the application is exiting");
        }
        inside++;
    }

    /** Lets a call out. */
    synchronized void exit() {
        if (--inside == 0) {
            notifyAll();
        }
    }

    /** Closes the gate and waits, at most {@code millis}, until no call is inside. */
    synchronized void close(long millis) {
        closed = true;
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long left;
        while (inside > 0 && (left = deadline - System.nanoTime()) > 0) {
            try {
                wait(Math.max(1, left / 1_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
