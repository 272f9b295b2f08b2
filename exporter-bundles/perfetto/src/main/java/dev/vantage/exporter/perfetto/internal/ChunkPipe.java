package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * An output stream whose bytes a second thread writes, so that encoding a trace and writing (or compressing) it
 * overlap. Bytes fill fixed-size chunks; a full chunk goes through a bounded queue to the writer thread, which
 * writes it to the target and hands it back for reuse: at most {@code chunks} chunks are ever in memory. A failure
 * of the target is rethrown to the encoding thread at its next hand-over or at {@link #close()}, which waits until
 * every byte is written and closes the target.
 *
 * <p>Concurrency: one thread writes to this stream, the writer thread is its own; chunks change hands only through
 * the blocking queues, which publish their content.
 */
final class ChunkPipe extends OutputStream {

    /** A buffer and how much of it holds data. */
    private static final class Chunk {
        final byte[] bytes;
        int length;

        Chunk(int size) {
            bytes = new byte[size];
        }
    }

    private static final Chunk END = new Chunk(0);

    private final OutputStream target;
    private final BlockingQueue<Chunk> full;
    private final BlockingQueue<Chunk> free;
    private final Thread writer;
    private volatile Throwable failure;
    private Chunk chunk;
    private boolean closed;

    ChunkPipe(OutputStream target, int chunkBytes, int chunks, String threadName) {
        this.target = target;
        this.full = new ArrayBlockingQueue<>(chunks + 1);
        this.free = new ArrayBlockingQueue<>(chunks + 1);
        for (int i = 1; i < chunks; i++) {
            free.add(new Chunk(chunkBytes));
        }
        this.chunk = new Chunk(chunkBytes);
        this.writer = new Thread(this::drain, threadName);
        writer.setDaemon(true);
        writer.start();
    }

    private void drain() {
        try {
            for (Chunk c = full.take(); c != END; c = full.take()) {
                target.write(c.bytes, 0, c.length);
                c.length = 0;
                free.put(c);
            }
        } catch (Throwable t) {
            failure = t;
            // wake an encoding thread waiting for a free chunk; it finds the failure
            free.offer(END);
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (chunk.length == chunk.bytes.length) {
            handOver();
        }
        chunk.bytes[chunk.length++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (chunk.length == chunk.bytes.length) {
                handOver();
            }
            int n = Math.min(len, chunk.bytes.length - chunk.length);
            System.arraycopy(b, off, chunk.bytes, chunk.length, n);
            chunk.length += n;
            off += n;
            len -= n;
        }
    }

    private void handOver() throws IOException {
        check();
        try {
            full.put(chunk);
            chunk = free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while handing a chunk to the writer");
        }
        check();
    }

    private void check() throws IOException {
        Throwable t = failure;
        if (t != null) {
            throw new IOException("writing the trace failed: " + t.getMessage(), t);
        }
    }

    /** Writes what is left, waits for the writer thread and closes the target. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (chunk.length > 0 && failure == null) {
                full.put(chunk);
            }
            full.put(END);
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while the writer finished");
        } finally {
            target.close();
        }
        check();
    }
}
