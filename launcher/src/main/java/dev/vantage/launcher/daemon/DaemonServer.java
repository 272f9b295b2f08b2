package dev.vantage.launcher.daemon;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.vantage.cli.ParsedCommand;
import dev.vantage.launcher.Main;
import dev.vantage.launcher.analysis.AnalysisTools;

/**
 * A resident analysis process: runs the analysis verbs of the clients that connect to its socket, one call at a time,
 * in one JVM whose analysis library stays loaded and compiled between calls. It serves one working folder (the one it
 * was started in), so a call's relative paths mean what they mean to the client's shell; it ends after its idle time
 * without a call, when asked to stop, when its socket is removed, and after a call that ran out of memory.
 *
 * <p>At most one process serves a key: it holds {@code <key>.lock} in the folder for as long as it runs.
 */
public final class DaemonServer {

    /** What runs one call: the words after {@code vantage}, the client's environment, its streams. */
    @FunctionalInterface
    interface Runner {
        /**
         * Runs a call.
         *
         * @return the exit code, or {@link #ELSEWHERE} for a call the client must run itself
         */
        int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) throws Exception;
    }

    /** The code a {@link Runner} returns for a call it does not run (a verb that boots the platform). */
    static final int ELSEWHERE = Integer.MIN_VALUE;

    /** The size of the key's log past which a new process empties it. */
    private static final long LOG_LIMIT = 1 << 20;

    /** How long after a call the process collects its heap, when no other call has come. */
    private static final Duration COLLECT_AFTER = Duration.ofSeconds(30);

    /** The key's files without their suffix: {@code <folder>/<key>}. */
    private final Path files;
    private final Path socket;
    private final Path lockFile;
    private final Path cwd;
    private final String identity;
    private final Duration idle;
    private final Runner runner;
    private final Instant started = Instant.now();
    private volatile long lastCall = System.nanoTime();
    private volatile boolean busy;
    private volatile boolean warming;
    private volatile boolean collected = true;
    private volatile int calls;
    private ServerSocketChannel channel;
    private FileChannel lockChannel;
    private FileLock lock;

    DaemonServer(Path dir, String identity, Path cwd, Duration idle, Runner runner) {
        this.files = dir.resolve(Daemons.key(identity));
        this.socket = file(".sock");
        this.lockFile = file(".lock");
        this.identity = identity;
        this.cwd = cwd;
        this.idle = idle;
        this.runner = runner;
    }

    /** One of the key's files: {@code .sock}, {@code .lock}, {@code .log}, {@code .warmup.json}. */
    private Path file(String suffix) {
        return files.resolveSibling(files.getFileName() + suffix);
    }

    /**
     * Takes the key's lock and listens on its socket. Waits (at most 30 s) while another process holds the lock and
     * nothing answers on the socket: one that is ending.
     *
     * @return false if another process serves the key
     */
    boolean bind() throws IOException {
        lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((lock = Daemons.tryLock(lockChannel)) == null) {
            SocketChannel other = Daemons.connect(socket);
            if (other != null) {
                other.close();
                lockChannel.close();
                return false;
            }
            if (System.nanoTime() > deadline) {
                lockChannel.close();
                throw new IOException("another process holds " + lockFile + " and does not answer on " + socket);
            }
            try {
                Thread.sleep(50); // the other process is closing its socket; its lock goes with its exit
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for " + lockFile);
            }
        }
        Files.deleteIfExists(socket); // a process that ended without removing it
        channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        channel.bind(UnixDomainSocketAddress.of(socket));
        return true;
    }

    /** Serves calls until idle, stopped, or the socket is removed; then removes the socket and frees the lock. */
    void serve() throws IOException {
        ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vantage-daemon-idle");
            t.setDaemon(true);
            return t;
        });
        long tick = Math.max(50, Math.min(1_000, idle.toMillis() / 4));
        watch.scheduleWithFixedDelay(() -> {
            long idleFor = System.nanoTime() - lastCall;
            if (!busy && !warming && idleFor > idle.toNanos() || !Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                close();
            } else if (!busy && !collected && idleFor > COLLECT_AFTER.toNanos()) {
                // a pause after a call: give back the heap the call grew while nobody waits for an answer (a call
                // that comes in the meantime waits for the collection, some tens of milliseconds)
                collected = true;
                System.gc();
            }
        }, tick, tick, TimeUnit.MILLISECONDS);
        try {
            while (true) {
                SocketChannel client;
                try {
                    client = channel.accept();
                } catch (ClosedChannelException e) {
                    break;
                }
                busy = true;
                boolean goOn;
                try (client) {
                    goOn = handle(client);
                } catch (IOException | UncheckedIOException e) {
                    System.err.println("vantage daemon: a client: " + e.getMessage());
                    goOn = true;
                } finally {
                    lastCall = System.nanoTime();
                    collected = false;
                    busy = false;
                }
                if (!goOn) {
                    break;
                }
            }
        } finally {
            watch.shutdownNow();
            close();
            Files.deleteIfExists(socket);
            lock.release();
            lockChannel.close();
        }
    }

    private void close() {
        try {
            channel.close();
        } catch (IOException e) {
            System.err.println("vantage daemon: closing " + socket + ": " + e.getMessage());
        }
    }

    /** Answers one request; false when the process should end. */
    private boolean handle(SocketChannel client) throws IOException {
        var in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(client)));
        var out = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(client), 1 << 16));
        Wire.Request request = Wire.Request.read(in);
        if (request.kind() == Wire.STATUS || request.kind() == Wire.STOP) {
            Runtime rt = Runtime.getRuntime();
            String line = String.format("pid %d  %s  up %s, idle %s, %d calls, heap %d of %d MB%s%n",
                    ProcessHandle.current().pid(), cwd, age(Duration.between(started, Instant.now())),
                    age(Duration.ofNanos(System.nanoTime() - lastCall)), calls,
                    (rt.totalMemory() - rt.freeMemory()) >> 20, rt.totalMemory() >> 20,
                    request.kind() == Wire.STOP ? ": stopped" : "");
            new Wire.FrameStream(Wire.OUT, out).write(line.getBytes(StandardCharsets.UTF_8));
            Wire.exit(out, 0);
            return request.kind() == Wire.STATUS;
        }
        if (!request.identity().equals(identity)) {
            Wire.elsewhere(out); // another identity of the same key: not a call of this process's
            return true;
        }
        calls++;
        // a client that goes (Ctrl-C) ends the call: its thread is interrupted, so that its reading and writing of
        // files stops at once (an interruptible channel throws), and its frames throw once the client has hung up
        AtomicBoolean gone = new AtomicBoolean();
        AtomicBoolean running = new AtomicBoolean(true);
        Thread caller = Thread.currentThread();
        Thread watcher = new Thread(() -> {
            try {
                client.read(ByteBuffer.allocate(1)); // the client sends nothing more: this returns at its end
            } catch (IOException e) {
                // closed under this thread when the call ended
            }
            gone.set(true);
            synchronized (running) {
                if (running.get()) {
                    caller.interrupt();
                }
            }
        }, "vantage-daemon-client");
        watcher.setDaemon(true);
        watcher.start();
        var callOut = new PrintStream(new BufferedOutputStream(new Wire.FrameStream(Wire.OUT, out, gone), 1 << 16),
                false, StandardCharsets.UTF_8);
        var callErr = new PrintStream(new BufferedOutputStream(new Wire.FrameStream(Wire.ERR, out, gone), 1 << 12),
                false, StandardCharsets.UTF_8);
        int code;
        boolean goOn = true;
        long began = System.nanoTime();
        String verb = request.args().isEmpty() ? "" : request.args().get(0);
        try {
            try {
                code = runner.run(request.args(), request.env(), callOut, callErr);
            } catch (Throwable e) {
                // after an error of the JVM's (out of memory) this process is not trusted with another call
                goOn = !(e instanceof Error);
                code = Main.exitCode(e, callErr);
            } finally {
                synchronized (running) {
                    running.set(false);
                    // the call's interruption is not the next accept's, which it would close the socket under
                    Thread.interrupted();
                }
            }
            callOut.flush();
            callErr.flush();
            System.err.printf("%s vantage daemon: %s: exit %d in %d ms%n", Instant.now(), verb,
                    code == ELSEWHERE ? -1 : code, (System.nanoTime() - began) / 1_000_000);
            if (code == ELSEWHERE) {
                Wire.elsewhere(out);
            } else {
                Wire.exit(out, code);
            }
        } catch (UncheckedIOException | IOException e) {
            System.err.printf("%s vantage daemon: %s: the client went after %d ms; the call ended%n", Instant.now(),
                    verb, (System.nanoTime() - began) / 1_000_000);
        }
        return goOn;
    }

    private static String age(Duration d) {
        long s = d.toSeconds();
        return s < 120 ? s + " s" : s < 7_200 ? s / 60 + " min" : s / 3_600 + " h";
    }

    /**
     * Runs an analysis verb as the launcher does (its help, its refusals, its exit codes), each distribution's analysis
     * library loaded once and kept; any other verb is the client's. Safe for the warm-up's thread beside the calls'.
     */
    static final class Analysis implements Runner, Main.Hosts {
        private final Map<Path, AnalysisTools.Library> libraries = new HashMap<>();

        @Override
        public int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
                throws Exception {
            return Main.run(args, env, out, err, this);
        }

        @Override
        public int analysis(Path home, ParsedCommand command, PrintStream out, PrintStream err) throws Exception {
            AnalysisTools.Library library;
            synchronized (libraries) { // the warm-up's thread and the calls'
                library = libraries.get(home);
                if (library == null) {
                    library = AnalysisTools.open(home);
                    libraries.put(home, library);
                }
            }
            return library.run(command, out, err);
        }

        @Override
        public int other(Path home, ParsedCommand command, PrintStream out, PrintStream err) {
            return ELSEWHERE;
        }
    }

    /**
     * Starts a resident process: {@code DaemonServer FOLDER IDENTITY IDLE_SECONDS} ({@link Daemons#identity}), in the
     * working folder it serves, with its output going to its log. Exits 0 at once when another process serves the
     * identity's key.
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: DaemonServer FOLDER IDENTITY IDLE_SECONDS");
            System.exit(2);
        }
        Path cwd = Path.of("").toAbsolutePath().toRealPath();
        DaemonServer server = new DaemonServer(Path.of(args[0]), args[1], cwd,
                Duration.ofSeconds(Long.parseLong(args[2])), new Analysis());
        if (!server.bind()) {
            System.exit(0);
        }
        Path log = server.file(".log");
        if (Files.isRegularFile(log) && Files.size(log) > LOG_LIMIT) {
            // the log of every process of this key, this one's appended: keep it from growing without end
            try (FileChannel file = FileChannel.open(log, StandardOpenOption.WRITE)) {
                file.truncate(0);
            }
        }
        System.err.println(Instant.now() + " vantage daemon: pid " + ProcessHandle.current().pid() + " serves " + cwd
                + " on " + server.socket);
        Path warmupTrace = server.file(".warmup.json");
        Thread warmup = new Thread(() -> {
            long began = System.nanoTime();
            try {
                int rounds = Warmup.run(server.runner, warmupTrace, () -> server.busy || server.calls > 0);
                System.err.printf("%s vantage daemon: warmed up, %d rounds in %d ms%n", Instant.now(), rounds,
                        (System.nanoTime() - began) / 1_000_000);
            } catch (Exception | Error e) {
                System.err.println(Instant.now() + " vantage daemon: the warm-up failed: " + e);
            } finally {
                // the idle time counts from the end of the warm-up
                server.lastCall = System.nanoTime();
                server.warming = false;
                try {
                    Files.deleteIfExists(warmupTrace);
                } catch (IOException e) {
                    System.err.println(Instant.now() + " vantage daemon: " + e);
                }
            }
        }, "vantage-daemon-warmup");
        server.warming = true;
        warmup.setDaemon(true);
        warmup.setPriority(Thread.MIN_PRIORITY);
        warmup.start();
        server.serve();
        System.err.println(Instant.now() + " vantage daemon: pid " + ProcessHandle.current().pid() + " ends after "
                + server.calls + " calls");
        System.exit(0);
    }
}
