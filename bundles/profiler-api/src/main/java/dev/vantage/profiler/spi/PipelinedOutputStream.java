package dev.vantage.profiler.spi;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * An output stream that hands its bytes, in fixed-size chunks, to a thread of its own that writes them to the
 * target: the caller encodes the next chunk while the previous one is compressed or copied to the file. Writing
 * a trace costs the encoding time or the target's time, whichever is larger, instead of their sum.
 *
 * <p>Memory is bounded: at most {@code chunks} chunks exist, and a caller that outpaces the target waits for a free
 * one. A failure of the target is rethrown to the caller at its next hand-over, {@link #flush()} or
 * {@link #close()}. {@link #close()} waits until every byte is written, then closes the target. Not thread-safe:
 * one thread writes.
 */
final class PipelinedOutputStream extends OutputStream {

    private static final byte[] END = new byte[0];
    private static final byte[] FLUSH = new byte[0];

    private final OutputStream target;
    private final int chunkSize;
    private final int maxChunks;
    private final BlockingQueue<Chunk> full;
    private final BlockingQueue<byte[]> free;
    private final Semaphore flushed = new Semaphore(0);
    private final Thread writer;
    private int allocated;
    private byte[] current;
    private int position;
    private boolean closed;
    private volatile IOException failure;

    /** A filled chunk, or {@link #FLUSH} or {@link #END} with length 0. */
    private record Chunk(byte[] bytes, int length) {
    }

    /**
     * Starts the writing thread.
     *
     * @param target where the bytes go; written, flushed and closed only by the writing thread and {@link #close()}
     * @param chunkSize the bytes handed over at a time
     * @param chunks the most chunks in memory at once, at least 2
     * @param threadName the writing thread's name
     */
    PipelinedOutputStream(OutputStream target, int chunkSize, int chunks, String threadName) {
        if (chunkSize < 1 || chunks < 2) {
            throw new IllegalArgumentException("chunkSize " + chunkSize + ", chunks " + chunks);
        }
        this.target = target;
        this.chunkSize = chunkSize;
        this.maxChunks = chunks;
        this.full = new ArrayBlockingQueue<>(chunks + 1);
        this.free = new ArrayBlockingQueue<>(chunks);
        this.current = new byte[chunkSize];
        this.allocated = 1;
        this.writer = new Thread(this::drain, threadName);
        writer.setDaemon(true);
        writer.start();
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (position == chunkSize) {
            handOver();
        }
        current[position++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (position == chunkSize) {
                handOver();
            }
            int n = Math.min(len, chunkSize - position);
            System.arraycopy(b, off, current, position, n);
            position += n;
            off += n;
            len -= n;
        }
    }

    /** Hands over what is buffered and waits until the target has written and flushed it. */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        if (position > 0) {
            handOver();
        }
        put(new Chunk(FLUSH, 0));
        try {
            flushed.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing the trace");
        }
        rethrow();
    }

    /** Hands over the rest, waits for the writing thread to write it all, then closes the target. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (position > 0 && failure == null) {
                full.put(new Chunk(current, position));
                position = 0;
            }
            full.put(new Chunk(END, 0));
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            writer.interrupt();
            throw new InterruptedIOException("interrupted while writing the trace");
        }
        IOException closing = null;
        try {
            target.close();
        } catch (IOException e) {
            closing = e;
        }
        rethrow();
        if (closing != null) {
            throw closing;
        }
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("stream closed");
        }
    }

    private void handOver() throws IOException {
        rethrow();
        put(new Chunk(current, position));
        position = 0;
        byte[] next = free.poll();
        if (next == null) {
            if (allocated < maxChunks) {
                allocated++;
                next = new byte[chunkSize];
            } else {
                next = take();
            }
        }
        current = next;
    }

    private void put(Chunk chunk) throws IOException {
        try {
            full.put(chunk);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing the trace");
        }
    }

    private byte[] take() throws IOException {
        try {
            return free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing the trace");
        }
    }

    private void rethrow() throws IOException {
        IOException f = failure;
        if (f != null) {
            throw new IOException("writing the trace failed: " + f.getMessage(), f);
        }
    }

    /**
     * The writing thread: writes each chunk and returns its buffer, flushes the target on a flush marker and
     * answers it. After a failure it only returns buffers and answers markers, so the caller never waits forever.
     */
    private void drain() {
        try {
            while (true) {
                Chunk c = full.take();
                if (c.bytes() == END) {
                    attempt(null, 0);
                    return;
                }
                attempt(c.bytes() == FLUSH ? null : c.bytes(), c.length());
                if (c.bytes() == FLUSH) {
                    flushed.release();
                } else {
                    free.put(c.bytes());
                }
            }
        } catch (InterruptedException e) {
            failure = new InterruptedIOException("the trace writer was interrupted");
            flushed.release();
        }
    }

    /** Writes {@code bytes} to the target, or flushes it when {@code bytes} is null, unless it already failed. */
    private void attempt(byte[] bytes, int length) {
        if (failure != null) {
            return;
        }
        try {
            if (bytes == null) {
                target.flush();
            } else {
                target.write(bytes, 0, length);
            }
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException(e.toString(), e);
        }
    }
}
