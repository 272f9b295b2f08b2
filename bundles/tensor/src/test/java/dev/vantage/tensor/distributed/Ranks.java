package dev.vantage.tensor.distributed;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs N ranks as threads of this JVM, each with its own process group over loopback sockets. */
final class Ranks implements AutoCloseable {

    /** What one rank does. */
    @FunctionalInterface
    interface RankBody<T> {
        T run(ProcessGroup group) throws Exception;
    }

    final List<ProcessGroup> groups;
    private final ExecutorService threads;

    private Ranks(List<ProcessGroup> groups, ExecutorService threads) {
        this.groups = groups;
        this.threads = threads;
    }

    /**
     * Forms a group of {@code n} ranks on a free loopback port. The port is free when chosen, but another socket
     * (an outgoing connection takes an ephemeral port too) may take it before rank 0 binds: then the group is
     * formed again on another port, at most three times.
     */
    static Ranks start(int n, Duration timeout) throws Exception {
        for (int attempt = 1; ; attempt++) {
            int port = freePort();
            ExecutorService threads = Executors.newFixedThreadPool(n);
            List<Future<ProcessGroup>> joining = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                joining.add(threads.submit(() -> ProcessGroup.init(rank, n, "127.0.0.1", port, timeout)));
            }
            try {
                List<ProcessGroup> groups = new ArrayList<>();
                for (Future<ProcessGroup> f : joining) {
                    groups.add(f.get());
                }
                return new Ranks(groups, threads);
            } catch (java.util.concurrent.ExecutionException e) {
                threads.shutdownNow();
                if (attempt == 3 || !portTaken(e)) {
                    throw e;
                }
            }
        }
    }

    /** Whether a failure is rank 0 finding its rendezvous port taken. */
    static boolean portTaken(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.BindException) {
                return true;
            }
        }
        return false;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Runs the body on every rank at once and returns the results by rank; rethrows the first failure. */
    <T> List<T> each(RankBody<T> body) throws Exception {
        List<Future<T>> running = new ArrayList<>();
        for (ProcessGroup g : groups) {
            running.add(threads.submit(() -> body.run(g)));
        }
        List<T> results = new ArrayList<>();
        for (Future<T> f : running) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception x) {
                    throw x;
                }
                throw e;
            }
        }
        return results;
    }

    /** Runs the body on every rank at once and returns what each threw (null for none), by rank. */
    List<Throwable> failures(RankBody<?> body) throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (ProcessGroup g : groups) {
            running.add(threads.submit(() -> body.run(g)));
        }
        List<Throwable> thrown = new ArrayList<>();
        for (Future<?> f : running) {
            try {
                f.get();
                thrown.add(null);
            } catch (ExecutionException e) {
                thrown.add(e.getCause());
            }
        }
        return thrown;
    }

    @Override
    public void close() {
        groups.forEach(ProcessGroup::close);
        threads.shutdownNow();
    }
}
