package dev.vantage.device.kit.emulation;

import java.util.ArrayDeque;

/**
 * An in-order stream of device work, served by its own worker thread, started at the first submission. Work
 * submitted to one stream runs in submission order; work on different streams runs concurrently. Each submission
 * gets a ticket, and {@link #await(long, long)} waits for a ticket to complete.
 *
 * <p>Errors: work that throws does not stop the stream (later work still runs, so nobody waits forever); the
 * first failure is kept and thrown, once, to the next host thread that synchronizes with the stream, as a device
 * runtime reports an asynchronous error at the next synchronizing call. A worker that dies (of an
 * {@link Error} such as {@link OutOfMemoryError}, which leaves the JVM in no state to go on with the queue) fails
 * every waiter, present and future, and every later submission, with an exception whose cause is what killed it,
 * as a device runtime fails every call after the device is lost; nobody waits for work that will never run.
 *
 * <p>For the platform's fault tests, the system property {@code vantage.emulation.exhaustHeapAfter=N} makes every
 * stream's worker, after its N-th piece of work, ask for one array larger than the JVM's whole heap: the JVM throws
 * its own {@link OutOfMemoryError} ("Java heap space") in the worker, always there and always then, without filling
 * the heap other threads use (which made such a test depend on which thread ran out first).
 */
public final class EmulatedStream {

    private final String name;
    private final long id;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private long submitted;
    private long completed;
    private RuntimeException failure;
    /** What killed the worker, or null while it lives. */
    private Throwable death;
    private Thread worker;
    private boolean closed;
    /** After how many pieces of work the worker exhausts the heap, or 0 for never (see the class comment). */
    private final long exhaustHeapAfter = Long.getLong("vantage.emulation.exhaustHeapAfter", 0);

    /**
     * Creates a stream.
     *
     * @param name what the worker thread and error messages call it, such as {@code npu:0 stream 1}
     * @param id the stream id shown in traces
     */
    public EmulatedStream(String name, long id) {
        this.name = name;
        this.id = id;
    }

    /** Returns the stream id. */
    public long id() {
        return id;
    }

    /** Returns the stream's name. */
    public String name() {
        return name;
    }

    /**
     * Queues work and returns its ticket at once.
     *
     * @throws IllegalStateException if the stream was closed
     */
    public synchronized long submit(Runnable work) {
        if (death != null) {
            throw died();
        }
        if (closed) {
            throw new IllegalStateException(name + " is closed: its device was shut down");
        }
        if (worker == null) {
            worker = new Thread(this::serve, "vantage-" + name.replace(' ', '-').replace(":", ""));
            worker.setDaemon(true);
            worker.start();
        }
        queue.add(work);
        notifyAll();
        return ++submitted;
    }

    /** Returns the ticket of the last submission, 0 before the first. */
    public synchronized long lastTicket() {
        return submitted;
    }

    /**
     * Waits until the work with a ticket has completed.
     *
     * @param timeoutNanos how long to wait at most; {@link Long#MAX_VALUE} for no limit
     * @return true if it completed, false if the timeout passed first
     * @throws RuntimeException the stream's pending asynchronous failure, reported once; or, whenever the work is
     *     not done and the worker died, an {@link IllegalStateException} whose cause is what killed it
     */
    public boolean await(long ticket, long timeoutNanos) {
        boolean forever = timeoutNanos == Long.MAX_VALUE;
        long deadline = forever ? 0 : System.nanoTime() + timeoutNanos;
        synchronized (this) {
            while (completed < ticket) {
                if (death != null) {
                    throw died();
                }
                long left = forever ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    wait(Math.max(1, left / 1_000_000), 0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + name, e);
                }
            }
            RuntimeException f = failure;
            if (f != null) {
                failure = null;
                throw f;
            }
            return true;
        }
    }

    /**
     * Waits without a timeout; for a worker thread waiting on another stream.
     *
     * @throws IllegalStateException if the work is not done and the worker died; its cause is what killed it
     */
    public void awaitQuietly(long ticket) {
        synchronized (this) {
            while (completed < ticket) {
                if (death != null) {
                    throw died();
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Waits for everything submitted so far; see {@link #await}. */
    public boolean synchronize(long timeoutNanos) {
        return await(lastTicket(), timeoutNanos);
    }

    /** The failure a waiter or submitter gets once the worker died; its cause is what killed it. */
    private IllegalStateException died() {
        return new IllegalStateException(name + " stopped: its worker died of " + death, death);
    }

    private void serve() {
        try {
            serveQueue();
        } catch (Throwable t) {
            // an Error out of the work, or out of reporting its failure: no later work can be trusted to run
            synchronized (this) {
                death = t;
                queue.clear();
                notifyAll();
            }
        }
    }

    private void serveQueue() {
        while (true) {
            Runnable work;
            synchronized (this) {
                while (queue.isEmpty() && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // closing interrupts; the loop re-checks
                    }
                }
                if (queue.isEmpty()) {
                    return;
                }
                work = queue.poll();
            }
            RuntimeException error = null;
            try {
                work.run();
            } catch (RuntimeException | LinkageError | AssertionError e) {
                error = new IllegalStateException("asynchronous failure on " + name + ": " + e.getMessage(), e);
            }
            synchronized (this) {
                completed++;
                if (error != null && failure == null) {
                    failure = error;
                }
                notifyAll();
            }
            if (exhaustHeapAfter > 0 && completed == exhaustHeapAfter) {
                exhaustHeap();
            }
        }
    }

    /** Asks for more than the whole heap: the JVM's own OutOfMemoryError, in this thread, now. */
    private static void exhaustHeap() {
        long words = Math.min(Integer.MAX_VALUE - 16L, Runtime.getRuntime().maxMemory() / Long.BYTES + 1024);
        long[] more = new long[(int) words];
        if (more.length == words) {
            // a heap of more than 16 GiB holds the array: the fault test runs in a small one
            throw new IllegalStateException("vantage.emulation.exhaustHeapAfter needs a heap below 16 GiB");
        }
    }

    /** Lets the worker finish what was queued and stop; later submissions fail. */
    public void close() {
        Thread w;
        synchronized (this) {
            closed = true;
            notifyAll();
            w = worker;
        }
        if (w != null && w != Thread.currentThread()) {
            try {
                w.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Returns a fence at a ticket this stream handed out. */
    public Fence fence(long ticket) {
        return new Ticket(this, ticket);
    }

    /** A fence at a ticket already submitted. */
    record Ticket(EmulatedStream stream, long ticket) implements Fence {
        @Override
        public void submit() {
        }

        @Override
        public void await() {
            stream.awaitQuietly(ticket);
        }
    }
}
