package dev.vantage.launcher.ranks;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import dev.vantage.cli.LaunchCommand;
import dev.vantage.launcher.Distribution;
import dev.vantage.launcher.LaunchException;

/**
 * Runs {@code vantage launch}: starts one child JVM per rank, each running {@code vantage run} with the environment
 * torchrun sets, copies their output line by line behind {@code [rank<R>]: }, and ends with the exit code of the
 * first rank that failed, or 0.
 *
 * <p>Design: the calling thread starts the ranks in order and then waits for one watcher thread per rank; each rank
 * also has two daemon threads copying its stdout and stderr ({@link PrefixedLines}). A watcher waits for its rank's
 * process, reports the exit to {@link FirstFailure} at once (so "first" is by time), lets the rank's output drain,
 * and, for the first failure, prints one line and stops every other rank: {@link Process#destroy()}, then
 * {@link Process#destroyForcibly()} for those still alive after {@link #GRACE_MILLIS}. Once stopping has begun no
 * further rank starts; starting and stopping share one lock for that. A shutdown hook (Ctrl-C, SIGTERM) stops the
 * ranks the same way and waits for them; it is removed when the launch ends normally. One instance runs one launch.
 */
public final class Launch {

    /** How long a rank has to end after {@link Process#destroy()} before it is killed. */
    static final long GRACE_MILLIS = 10_000;
    /** How long a watcher waits for an ended rank's last output before it moves on. */
    private static final long DRAIN_MILLIS = 5_000;

    private final LaunchCommand args;
    private final IntFunction<List<String>> command;
    private final long graceMillis;
    private final PrintStream out;
    private final PrintStream err;
    private final FirstFailure failure = new FirstFailure();
    private final Object lock = new Object();
    /** The processes started, in rank order; guarded by {@link #lock}. */
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> watchers = new ArrayList<>();
    /** Whether the ranks are being stopped, so that no further rank starts; guarded by {@link #lock}. */
    private boolean stopping;

    /**
     * @param args the checked launch flags
     * @param command builds the command line of a rank from its number; called once per rank, in order
     * @param out where the ranks' stdout lines go
     * @param err where the ranks' stderr lines and the launcher's own messages go
     */
    Launch(LaunchCommand args, IntFunction<List<String>> command, PrintStream out, PrintStream err) {
        this(args, command, out, err, GRACE_MILLIS);
    }

    /** As {@link #Launch(LaunchCommand, IntFunction, PrintStream, PrintStream)}, with another grace period. */
    Launch(LaunchCommand args, IntFunction<List<String>> command, PrintStream out, PrintStream err, long graceMillis) {
        this.args = Objects.requireNonNull(args, "args");
        this.command = Objects.requireNonNull(command, "command");
        this.out = Objects.requireNonNull(out, "out");
        this.err = Objects.requireNonNull(err, "err");
        if (graceMillis <= 0) {
            throw new IllegalArgumentException("graceMillis must be more than zero, not " + graceMillis);
        }
        this.graceMillis = graceMillis;
    }

    /**
     * Runs {@code vantage launch} with the arguments after the verb: each rank runs this launcher's jar.
     *
     * @param distribution the distribution the ranks boot, as given with {@code --distribution}, or null for the
     *        launcher's own
     * @return the launcher's exit code
     * @throws IllegalArgumentException for bad launch flags or a master port in use, before any rank starts
     * @throws LaunchException if a rank cannot be started; the ranks already started are stopped
     */
    public static int run(LaunchCommand parsed, String distribution, PrintStream out, PrintStream err)
            throws LaunchException {
        Path launcherJar = Distribution.launcherJar();
        List<String> rankCommand = rankCommand(Path.of(System.getProperty("java.home"), "bin", "java"),
                ManagementFactory.getRuntimeMXBean().getInputArguments(), launcherJar, distribution, parsed);
        return new Launch(parsed, rank -> rankCommand, out, err).call();
    }

    /** This launch's time, {@code yyyyMMdd-HHmmss}, which its ranks' default profile names share. */
    static final String LAUNCH_ID = java.time.LocalDateTime.now().format(
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));

    /**
     * This launch's job id, 12 random lowercase hex digits: each rank's line of the run registry
     * ({@code runs.jsonl}) and each rank's trace metadata ({@code vantage.job_id}) carry it, so that the ranks of one
     * launch can be found together.
     */
    static final String JOB_ID = java.util.HexFormat.of().formatHex(randomBytes());

    private static byte[] randomBytes() {
        byte[] bytes = new byte[6];
        new java.security.SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /**
     * Returns the variables rank {@code rank} gets on top of the launcher's environment, as torchrun sets them,
     * in a stable order.
     *
     * @throws IllegalArgumentException if {@code rank} is not in {@code 0..nproc-1}
     */
    static Map<String, String> environment(LaunchCommand args, int rank) {
        if (rank < 0 || rank >= args.nproc()) {
            throw new IllegalArgumentException("rank " + rank + " is not in 0.." + (args.nproc() - 1));
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("RANK", Integer.toString(rank));
        // one machine: the local rank is the rank
        env.put("LOCAL_RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(args.nproc()));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(args.nproc()));
        env.put("MASTER_ADDR", args.masterAddr());
        env.put("MASTER_PORT", Integer.toString(args.masterPort()));
        env.put("VANTAGE_LAUNCH_TIMEOUT_MS", Long.toString(args.timeoutMillis()));
        // one default profile name for every rank of this launch: <workload>-<launch time>-rank<R>
        env.put("VANTAGE_LAUNCH_ID", LAUNCH_ID);
        env.put("VANTAGE_JOB_ID", JOB_ID);
        return env;
    }

    /**
     * Returns the command line of every rank: {@code java [jvmOptions] -jar launcherJar [--distribution D] run
     * <workload> [run flags]}.
     */
    static List<String> rankCommand(Path java, List<String> jvmOptions, Path launcherJar, String distribution,
            LaunchCommand args) {
        List<String> c = new ArrayList<>();
        c.add(java.toString());
        c.addAll(jvmOptions);
        c.add("-jar");
        c.add(launcherJar.toString());
        if (distribution != null) {
            c.add("--distribution");
            c.add(distribution);
        }
        c.add("run");
        c.add(args.workload());
        c.addAll(args.runArgs());
        return c;
    }

    /**
     * Checks the master port, starts every rank and waits until all have ended and their output is written.
     *
     * @return 0 if every rank exited 0, else the exit code of the first rank that failed
     * @throws IllegalArgumentException if the master address is not of this machine or the port is taken; nothing
     *         has started then
     * @throws LaunchException if a rank cannot be started; the ranks already started are stopped first
     */
    int call() throws LaunchException {
        checkMasterPort(args.masterAddr(), args.masterPort());
        Thread hook = new Thread(this::stopOnShutdown, "vantage-launch-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            String startFailure = null;
            for (int rank = 0; rank < args.nproc() && startFailure == null; rank++) {
                try {
                    if (!start(rank)) {
                        break;   // a rank failed already: the rest are not started
                    }
                } catch (IOException | RuntimeException e) {
                    startFailure = "cannot start rank " + rank + ": " + e.getMessage();
                    stopAll(false);
                }
            }
            List<Thread> all;
            synchronized (lock) {
                all = List.copyOf(watchers);
            }
            for (Thread w : all) {
                joinUninterruptibly(w, 0);
            }
            if (startFailure != null) {
                throw new LaunchException(startFailure);
            }
            return failure.exitCode();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running or has run
            }
        }
    }

    /** Returns the processes started so far, in rank order: for tests, which check that none outlives the launch. */
    List<Process> processes() {
        synchronized (lock) {
            return List.copyOf(processes);
        }
    }

    /**
     * Refuses a master address that is not of this machine and a master port something already listens on.
     *
     * @throws IllegalArgumentException naming the address or port
     */
    static void checkMasterPort(String addr, int port) {
        InetAddress address;
        try {
            address = InetAddress.getByName(addr);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--master-addr '" + addr + "' is not a known host");
        }
        try {
            if (!address.isAnyLocalAddress() && !address.isLoopbackAddress()
                    && NetworkInterface.getByInetAddress(address) == null) {
                throw new IllegalArgumentException("--master-addr '" + addr + "' is not an address of this machine;"
                        + " launch starts every rank here");
            }
        } catch (SocketException e) {
            // the interfaces cannot be listed: the bind below tells
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(address, port));
        } catch (BindException e) {
            throw new IllegalArgumentException("master port " + port + " on " + addr + " is taken (" + e.getMessage()
                    + "); choose another with --master-port");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot check master port " + port + " on " + addr + ": "
                    + e.getMessage());
        }
    }

    /** Starts rank {@code rank} with its output copiers and watcher; returns false, starting nothing, if stopping. */
    private boolean start(int rank) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command.apply(rank));
        // the launcher's JVM options, these included, are on the rank's command line already: not twice
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().putAll(environment(args, rank));
        synchronized (lock) {
            if (stopping) {
                return false;
            }
            Process p = builder.start();
            processes.add(p);
            try {
                p.getOutputStream().close();   // a rank reads no input: at EOF at once rather than waiting for it
            } catch (IOException e) {
                // the rank is gone already: its watcher reports how it ended
            }
            Thread copyOut = copier(p.getInputStream(), rank, out, "out");
            Thread copyErr = copier(p.getErrorStream(), rank, err, "err");
            Thread watcher = new Thread(() -> watch(rank, p, copyOut, copyErr), "vantage-rank" + rank);
            watchers.add(watcher);
            watcher.start();
            return true;
        }
    }

    private static Thread copier(InputStream in, int rank, PrintStream to, String which) {
        PrefixedLines lines = new PrefixedLines(PrefixedLines.prefixOf(rank), to);
        Thread t = new Thread(() -> {
            try {
                lines.copy(in);
            } catch (IOException e) {
                // the pipe broke: the rank is gone, and the lines read before are written
            }
        }, "vantage-rank" + rank + "-" + which);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void watch(int rank, Process p, Thread copyOut, Thread copyErr) {
        int code;
        while (true) {
            try {
                code = p.waitFor();
                break;
            } catch (InterruptedException e) {
                // nothing interrupts a watcher on purpose, and the rank ends for sure: keep waiting for it
            }
        }
        boolean first = failure.exited(rank, code);
        boolean stopsOthers;
        synchronized (lock) {
            // a rank that ends because the launcher is stopping them all (Ctrl-C, a rank that did not start) is no
            // news; a first failure before that stops whatever runs, and no rank starts after it
            stopsOthers = first && !stopping;
            stopping |= stopsOthers;
        }
        // the rank's last lines (often why it failed) before the launcher's own
        joinUninterruptibly(copyOut, DRAIN_MILLIS);
        joinUninterruptibly(copyErr, DRAIN_MILLIS);
        if (stopsOthers) {
            boolean othersRun = processes().stream().anyMatch(o -> o != p && o.isAlive());
            if (othersRun) {
                err.println("vantage: rank " + rank + " exited with code " + code + "; stopping the other ranks");
            }
            stopAll(false);
        }
    }

    /**
     * Stops starting ranks and asks every running one to end, killing those still alive after the grace period
     * ({@link #GRACE_MILLIS} unless a test chose another): in this thread when {@code wait}, else in a daemon thread.
     */
    private void stopAll(boolean wait) {
        List<Process> running;
        synchronized (lock) {
            stopping = true;
            running = List.copyOf(processes);
        }
        running.forEach(Process::destroy);
        Runnable enforce = () -> {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
            for (Process p : running) {
                try {
                    if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        p.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                }
            }
        };
        if (wait) {
            enforce.run();
        } else {
            Thread t = new Thread(enforce, "vantage-launch-stop");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The shutdown hook: stops every rank and lets the watchers write their last lines before the JVM ends. */
    private void stopOnShutdown() {
        stopAll(true);
        List<Thread> all;
        synchronized (lock) {
            all = List.copyOf(watchers);
        }
        for (Thread w : all) {
            joinUninterruptibly(w, DRAIN_MILLIS);
        }
    }

    /** Waits for {@code t} to end, at most {@code millis} (0: no limit); an interrupt is kept for the caller. */
    private static void joinUninterruptibly(Thread t, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        boolean interrupted = false;
        try {
            while (t.isAlive()) {
                long left = millis == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (millis != 0 && left <= 0) {
                    return;
                }
                try {
                    t.join(left);
                } catch (InterruptedException e) {
                    // the wait is bounded, or the thread ends with its rank, which is stopped when this JVM ends
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
