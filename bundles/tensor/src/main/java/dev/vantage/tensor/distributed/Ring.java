package dev.vantage.tensor.distributed;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The data plane of a group of two or more ranks: a TCP connection to the next rank and one from the previous,
 * and the ring algorithms over them. Only the group's communication thread calls it, one collective at a time.
 *
 * <p>Every step sends a frame to the next rank while receiving one from the previous; the send runs on a sender
 * thread so that a full socket buffer cannot deadlock the ring. A frame is a header (the collective's sequence
 * number and code, the payload's byte length) and the payload, in network byte order. Every read has the group's timeout
 * (the socket's {@code SO_TIMEOUT}); a send not taken within it is a timeout too. Failures are
 * {@link DistributedException}s naming this rank, the peer and the collective.
 */
final class Ring implements AutoCloseable {

    private static final int HEADER = 12;
    /** Broadcast forwards pieces of this many bytes, so ranks down the ring start forwarding early. */
    private static final int PIECE_BYTES = 1 << 20;

    private final int rank;
    private final int size;
    private final long timeoutMillis;
    private final Socket next;
    private final Socket prev;
    private final OutputStream toNext;
    private final DataInputStream fromPrev;
    private final ExecutorService sender;
    private ByteBuffer out = ByteBuffer.allocate(0);
    private ByteBuffer in = ByteBuffer.allocate(0);
    private volatile boolean closed;

    Ring(int rank, int size, long timeoutMillis, Socket next, Socket prev) throws IOException {
        this.rank = rank;
        this.size = size;
        this.timeoutMillis = timeoutMillis;
        this.next = next;
        this.prev = prev;
        prev.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis));
        this.toNext = next.getOutputStream();
        this.fromPrev = new DataInputStream(prev.getInputStream());
        this.sender = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "vantage-pg-rank" + rank + "-send");
            t.setDaemon(true);
            return t;
        });
    }

    private int nextRank() {
        return (rank + 1) % size;
    }

    private int prevRank() {
        return (rank + size - 1) % size;
    }

    /** The index of chunk {@code i} modulo the world size. */
    private int mod(int i) {
        return ((i % size) + size) % size;
    }

    /**
     * Reduce-scatter phase: after it, rank r holds the reduction over all ranks of chunk {@code r + 1 + shift}.
     * {@code bounds} has size + 1 entries; chunk i is {@code [bounds[i], bounds[i + 1])}.
     */
    void reduceScatter(Collective c, HostData d, int[] bounds, int shift, ReduceOp op) {
        for (int s = 0; s < size - 1; s++) {
            int send = mod(rank - s + shift);
            int recv = mod(rank - s - 1 + shift);
            Future<?> sent = send(c, d, bounds[send], bounds[send + 1] - bounds[send]);
            ByteBuffer got = receive(c, (bounds[recv + 1] - bounds[recv]) * d.itemSize());
            d.reduce(got, bounds[recv], bounds[recv + 1] - bounds[recv], op);
            awaitSend(c, sent);
        }
    }

    /** All-gather phase: rank r starts owning chunk {@code r + shift}; after it every rank holds every chunk. */
    void allGather(Collective c, HostData d, int[] bounds, int shift) {
        for (int s = 0; s < size - 1; s++) {
            int send = mod(rank + shift - s);
            int recv = mod(rank + shift - s - 1);
            Future<?> sent = send(c, d, bounds[send], bounds[send + 1] - bounds[send]);
            ByteBuffer got = receive(c, (bounds[recv + 1] - bounds[recv]) * d.itemSize());
            d.get(got, bounds[recv], bounds[recv + 1] - bounds[recv]);
            awaitSend(c, sent);
        }
    }

    /** Broadcast from {@code src} along the ring, in pieces, each rank forwarding what it received. */
    void broadcast(Collective c, HostData d, int src) {
        int piece = Math.max(1, PIECE_BYTES / d.itemSize());
        boolean forward = nextRank() != src;
        Future<?> sent = null;
        int from = 0;
        do {
            int n = Math.min(piece, d.length() - from);
            if (rank != src) {
                d.get(receive(c, n * d.itemSize()), from, n);
            }
            if (forward) {
                if (sent != null) {
                    awaitSend(c, sent);
                }
                sent = send(c, d, from, n);
            }
            from += n;
        } while (from < d.length());
        if (sent != null) {
            awaitSend(c, sent);
        }
    }

    private Future<?> send(Collective c, HostData d, int from, int n) {
        int bytes = n * d.itemSize();
        if (out.capacity() < HEADER + bytes) {
            out = ByteBuffer.allocate(HEADER + bytes);
        }
        out.clear();
        out.putInt(c.sequence()).putInt(c.code()).putInt(bytes);
        d.put(out, from, n);
        byte[] frame = out.array();
        int length = out.position();
        return sender.submit(() -> {
            toNext.write(frame, 0, length);
            toNext.flush();
            return null;
        });
    }

    private void awaitSend(Collective c, Future<?> sent) {
        try {
            sent.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            close();
            throw new DistributedException(c.prefix(rank) + " timed out after " + c.timeoutText()
                    + " waiting for rank " + nextRank() + " to take its data", e);
        } catch (ExecutionException e) {
            throw failure(c, nextRank(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DistributedException(c.prefix(rank) + " failed: interrupted while sending to rank "
                    + nextRank(), e);
        }
    }

    /** Reads a frame from the previous rank and returns its payload, checking it is for this collective. */
    private ByteBuffer receive(Collective c, int bytes) {
        int from = prevRank();
        try {
            int seq = fromPrev.readInt();
            int code = fromPrev.readInt();
            int length = fromPrev.readInt();
            if (seq != c.sequence() || code != c.code() || length != bytes) {
                close();
                throw new DistributedException(c.prefix(rank) + " failed: rank " + from + " sent "
                        + Collective.nameOf(code) + " #" + seq + " of " + length + " bytes, expected " + c.name()
                        + " #" + c.sequence() + " of " + bytes + " bytes; the ranks called different collectives");
            }
            if (in.capacity() < bytes) {
                in = ByteBuffer.allocate(bytes);
            }
            in.clear();
            fromPrev.readFully(in.array(), 0, bytes);
            in.limit(bytes);
            return in;
        } catch (IOException e) {
            throw failure(c, from, e);
        }
    }

    private DistributedException failure(Collective c, int peer, Throwable e) {
        if (e instanceof DistributedException d) {
            return d;
        }
        boolean wasClosed = closed;
        close();
        if (e instanceof SocketTimeoutException) {
            return new DistributedException(c.prefix(rank) + " timed out after " + c.timeoutText()
                    + " waiting for rank " + peer, e);
        }
        if (wasClosed) {
            return new DistributedException(c.prefix(rank) + " failed: the process group was closed", e);
        }
        if (e instanceof EOFException) {
            return new DistributedException(c.prefix(rank) + " failed: rank " + peer + " closed its connection", e);
        }
        if (e instanceof IOException) {
            return new DistributedException(c.prefix(rank) + " failed: rank " + peer + " closed its connection ("
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
        }
        return new DistributedException(c.prefix(rank) + " failed talking to rank " + peer + ": " + e, e);
    }

    /** Closes both connections, which fails a collective blocked on them; idempotent. */
    @Override
    public void close() {
        closed = true;
        try {
            next.close();
        } catch (IOException e) {
            // closing anyway
        }
        try {
            prev.close();
        } catch (IOException e) {
            // closing anyway
        }
        sender.shutdownNow();
    }
}
