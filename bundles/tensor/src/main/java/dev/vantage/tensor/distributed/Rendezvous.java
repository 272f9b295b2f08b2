package dev.vantage.tensor.distributed;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * How ranks find each other, as torch's TCP store does for {@code env://}: rank 0 listens on the master address and
 * port; every other rank connects to it (retrying until the timeout, since rank 0 may start later) and tells it the
 * address of its own data-plane listener; rank 0 answers everyone with the table of all listeners. Then each rank
 * connects to the next one's listener and accepts the previous one's connection: the ring.
 *
 * <p>A data-plane listener binds to the address this rank reaches the master from (the master address itself on
 * rank 0), on a port the system picks, so with the default {@code 127.0.0.1} nothing listens beyond loopback.
 */
final class Rendezvous {

    private static final int MAGIC = 0x56544447;   // "VTDG"

    private Rendezvous() {
    }

    /** Meets the other ranks and returns the ring; for a world size of 2 or more. */
    static Ring connect(int rank, int size, String masterAddr, int masterPort, long timeoutMillis) {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        String timeout = Collective.durationText(timeoutMillis);
        try {
            InetAddress master = InetAddress.getByName(masterAddr);
            String[] hosts = new String[size];
            int[] ports = new int[size];
            ServerSocket data;
            if (rank == 0) {
                data = listen(master);
                hosts[0] = master.getHostAddress();
                ports[0] = data.getLocalPort();
                try {
                    serveTable(size, master, masterPort, deadline, timeout, hosts, ports);
                } catch (IOException | RuntimeException e) {
                    data.close();
                    throw e;
                }
            } else {
                data = joinTable(rank, size, master, masterPort, deadline, timeout, hosts, ports);
            }
            try (ServerSocket listener = data) {
                Socket next = new Socket();
                int nextRank = (rank + 1) % size;
                next.connect(new InetSocketAddress(hosts[nextRank], ports[nextRank]), remaining(deadline, rank,
                        "rendezvous", timeout, "connecting to rank " + nextRank));
                next.setTcpNoDelay(true);
                DataOutputStream hello = new DataOutputStream(next.getOutputStream());
                hello.writeInt(MAGIC);
                hello.writeInt(rank);
                hello.flush();
                int prevRank = (rank + size - 1) % size;
                listener.setSoTimeout(remaining(deadline, rank, "rendezvous", timeout, "waiting for rank " + prevRank));
                Socket prev = listener.accept();
                prev.setTcpNoDelay(true);
                prev.setSoTimeout(remaining(deadline, rank, "rendezvous", timeout, "waiting for rank " + prevRank));
                DataInputStream in = new DataInputStream(prev.getInputStream());
                int magic = in.readInt();
                int who = in.readInt();
                if (magic != MAGIC || who != prevRank) {
                    prev.close();
                    next.close();
                    throw new DistributedException("rank " + rank + ": rendezvous failed: expected rank " + prevRank
                            + " to connect, got " + (magic != MAGIC ? "a stranger" : "rank " + who));
                }
                return new Ring(rank, size, timeoutMillis, next, prev);
            }
        } catch (SocketTimeoutException e) {
            throw new DistributedException("rank " + rank + ": rendezvous timed out after " + timeout
                    + " at " + masterAddr + ":" + masterPort, e);
        } catch (IOException e) {
            throw new DistributedException("rank " + rank + ": rendezvous at " + masterAddr + ":" + masterPort
                    + " failed: " + e, e);
        }
    }

    private static ServerSocket listen(InetAddress address) throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(address, 0), 4);
        return s;
    }

    private static int remaining(long deadline, int rank, String what, String timeout, String doing) {
        long ms = (deadline - System.nanoTime()) / 1_000_000L;
        if (ms <= 0) {
            throw new DistributedException("rank " + rank + ": " + what + " timed out after " + timeout + " "
                    + doing);
        }
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    /** Rank 0: takes every other rank's listener address, then sends each the whole table. */
    private static void serveTable(int size, InetAddress master, int port, long deadline, String timeout,
            String[] hosts, int[] ports) throws IOException {
        Socket[] peers = new Socket[size];
        try (ServerSocket store = new ServerSocket()) {
            store.setReuseAddress(true);
            store.bind(new InetSocketAddress(master, port), size);
            for (int joined = 1; joined < size; joined++) {
                store.setSoTimeout(remaining(deadline, 0, "rendezvous", timeout,
                        "waiting for " + (size - joined) + " of " + size + " ranks to join at "
                                + master.getHostAddress() + ":" + port));
                Socket s;
                try {
                    s = store.accept();
                } catch (SocketTimeoutException e) {
                    throw new DistributedException("rank 0: rendezvous timed out after " + timeout + " waiting for "
                            + (size - joined) + " of " + size + " ranks to join at " + master.getHostAddress() + ":"
                            + port, e);
                }
                s.setSoTimeout(remaining(deadline, 0, "rendezvous", timeout, "reading a joining rank"));
                DataInputStream in = new DataInputStream(s.getInputStream());
                int magic = in.readInt();
                int r = in.readInt();
                int n = in.readInt();
                String host = in.readUTF();
                int p = in.readInt();
                if (magic != MAGIC || n != size || r <= 0 || r >= size || peers[r] != null) {
                    s.close();
                    throw new DistributedException("rank 0: rendezvous failed: a peer joined as rank " + r
                            + " of world size " + n + ", expected a new rank below " + size + " of world size "
                            + size);
                }
                peers[r] = s;
                hosts[r] = host;
                ports[r] = p;
            }
            for (int r = 1; r < size; r++) {
                DataOutputStream out = new DataOutputStream(peers[r].getOutputStream());
                for (int i = 0; i < size; i++) {
                    out.writeUTF(hosts[i]);
                    out.writeInt(ports[i]);
                }
                out.flush();
            }
        } finally {
            for (Socket s : peers) {
                if (s != null) {
                    s.close();
                }
            }
        }
    }

    /** Another rank: connects to rank 0, retrying, sends its listener address and reads the table. */
    private static ServerSocket joinTable(int rank, int size, InetAddress master, int port, long deadline,
            String timeout, String[] hosts, int[] ports) throws IOException {
        String where = master.getHostAddress() + ":" + port;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(master, port), remaining(deadline, rank, "rendezvous", timeout,
                        "connecting to rank 0 at " + where));
            } catch (ConnectException e) {
                s.close();
                // rank 0 is not listening yet: try again shortly, until the deadline
                remaining(deadline, rank, "rendezvous", timeout, "connecting to rank 0 at " + where);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new DistributedException("rank " + rank + ": rendezvous interrupted connecting to " + where,
                            ie);
                }
                continue;
            }
            try (Socket store = s) {
                ServerSocket data = listen(store.getLocalAddress());
                try {
                    DataOutputStream out = new DataOutputStream(store.getOutputStream());
                    out.writeInt(MAGIC);
                    out.writeInt(rank);
                    out.writeInt(size);
                    out.writeUTF(store.getLocalAddress().getHostAddress());
                    out.writeInt(data.getLocalPort());
                    out.flush();
                    store.setSoTimeout(remaining(deadline, rank, "rendezvous", timeout,
                            "waiting for rank 0 at " + where));
                    DataInputStream in = new DataInputStream(store.getInputStream());
                    for (int i = 0; i < size; i++) {
                        hosts[i] = in.readUTF();
                        ports[i] = in.readInt();
                    }
                    return data;
                } catch (IOException | RuntimeException e) {
                    data.close();
                    throw e;
                }
            }
        }
    }
}
