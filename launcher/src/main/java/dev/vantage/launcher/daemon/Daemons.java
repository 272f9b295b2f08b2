package dev.vantage.launcher.daemon;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.ProcessBuilder.Redirect;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.vantage.cli.DaemonCommand;
import dev.vantage.launcher.Distribution;
import dev.vantage.launcher.LaunchException;

/**
 * Where the resident analysis processes of a user live and how one is told from another. Each has a key: a hash of the
 * launcher jar (its path, size and time, so a rebuilt distribution gets a process of its own), the working folder (so
 * relative paths mean what they mean to the user's shell), the JVM options and the java command it was started with.
 * Its socket and log are {@code <key>.sock} and {@code <key>.log} in a folder only its owner may open, which is what
 * keeps other users off the socket.
 */
public final class Daemons {

    /** {@code VANTAGE_DAEMON=1} sends the analysis verbs to a resident process. */
    public static final String ENABLE = "VANTAGE_DAEMON";
    /** The folder of the sockets and logs, instead of {@code <temporary folder>/vantage-daemon-<user>}. */
    public static final String FOLDER = "VANTAGE_DAEMON_DIR";
    /** Seconds without a call after which a resident process ends. */
    public static final String IDLE = "VANTAGE_DAEMON_IDLE";
    /** How long a resident process waits for a call by default: 15 minutes. */
    public static final long DEFAULT_IDLE_SECONDS = 900;

    private static final EnumSet<PosixFilePermission> PRIVATE = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private Daemons() {
    }

    /**
     * Returns the folder of this user's sockets and logs, made if missing.
     *
     * @throws IOException if it cannot be made, is not a folder, is another user's, or others may open it
     */
    public static Path folder(Map<String, String> env) throws IOException {
        String given = env.get(FOLDER);
        Path dir = (given != null && !given.isEmpty() ? Path.of(given)
                : Path.of(System.getProperty("java.io.tmpdir"), "vantage-daemon-" + System.getProperty("user.name")))
                .toAbsolutePath().normalize();
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE));
            } catch (FileAlreadyExistsException e) {
                // made by a call beside this one: checked below like any other
            }
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a folder");
        }
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " belongs to " + owner);
        }
        var permissions = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        if (!permissions.equals(PRIVATE)) {
            throw new IOException(dir + " may be opened by others (" + PosixFilePermissions.toString(permissions)
                    + "); it must be rwx------");
        }
        return dir;
    }

    /**
     * Returns the seconds a resident process waits for a call, from {@link #IDLE}.
     *
     * @throws IllegalArgumentException naming the value when it is not a whole number of seconds from 1
     */
    public static long idleSeconds(Map<String, String> env) {
        String value = env.get(IDLE);
        if (value == null || value.isEmpty()) {
            return DEFAULT_IDLE_SECONDS;
        }
        try {
            long seconds = Long.parseLong(value);
            if (seconds >= 1) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(IDLE + "='" + value + "' is not a number of seconds (1 or more)");
    }

    /**
     * Returns what a process serves: this launcher jar (its path, size and time, so a rebuilt distribution gets a
     * process of its own), in this folder (relative paths), with these JVM options and this java command. A call
     * carries it, and a process runs only the calls of its own.
     */
    static String identity(Path launcherJar, Path cwd, String javaOptions, String java) throws IOException {
        Path jar = launcherJar.toRealPath();
        return String.join("\n", jar.toString(), Long.toString(Files.size(jar)),
                Long.toString(Files.getLastModifiedTime(jar).toMillis()), cwd.toRealPath().toString(), javaOptions,
                java);
    }

    /**
     * Returns the key of the process that serves an identity: its 64-bit FNV-1a hash in hex (a cryptographic hash
     * would cost the client a third of its start; two identities of one key are told apart by the identity a call
     * carries).
     */
    static String key(String identity) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : identity.getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        return String.format("%016x", hash);
    }

    /** The resident process's main class, named so that the client does not load it. */
    static final String SERVER = "dev.vantage.launcher.daemon.DaemonServer";

    /** How long {@code vantage daemon start} waits for a new process to answer on its socket. */
    private static final long START_SECONDS = 60;

    /**
     * The process that serves a caller: its identity, its files and the command line that starts it.
     *
     * @param identity what it serves ({@link #identity})
     * @param socket its socket, {@code <key>.sock}
     * @param lock the lock its process holds while it runs, {@code <key>.lock}
     * @param log its log, {@code <key>.log}
     * @param command the command line that starts it
     * @param cwd the folder it serves
     */
    record Target(String identity, Path socket, Path lock, Path log, List<String> command, Path cwd) {

        /**
         * The process of a caller with this environment, in this folder, of this launcher and JVM.
         *
         * @throws IOException if the folder cannot be used
         * @throws IllegalArgumentException if {@link #IDLE} is not a number of seconds
         */
        static Target of(Map<String, String> env, Path cwd) throws IOException, LaunchException {
            long idle = idleSeconds(env);
            Path dir = folder(env);
            Path jar = Distribution.launcherJar();
            // this JVM's java (ProcessHandle's command line would start a thread pool: a tenth of the client's start)
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String options = env.getOrDefault("VANTAGE_JAVA_OPTS", "");
            String identity = Daemons.identity(jar, cwd, options, java);
            String key = key(identity);
            List<String> command = new ArrayList<>();
            if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
                command.add("/usr/bin/setsid"); // a session of its own: the terminal's Ctrl-C is the client's
            }
            command.add(java);
            for (String option : options.trim().split("\\s+")) {
                if (!option.isEmpty()) {
                    command.add(option);
                }
            }
            command.addAll(List.of("-cp", jar.toString(), SERVER, dir.toString(), identity, Long.toString(idle)));
            return new Target(identity, dir.resolve(key + ".sock"), dir.resolve(key + ".lock"),
                    dir.resolve(key + ".log"), List.copyOf(command), cwd.toRealPath());
        }

        /** Returns whether a process holds the key's lock: one that is starting, serving or ending. */
        boolean starting() throws IOException {
            return held(lock);
        }

        /** Starts the process, its output going to its log, and returns without waiting for it. */
        Process spawn() throws IOException {
            return new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
                    .redirectOutput(Redirect.appendTo(log.toFile()))
                    .redirectInput(Redirect.from(new File("/dev/null"))).start();
        }

        /**
         * Starts the process unless one answers, and waits until it does.
         *
         * @return the channel of the process that answered
         * @throws IOException if none answers within a minute, or the new one failed
         */
        SocketChannel start() throws IOException {
            SocketChannel channel = connect(socket);
            if (channel != null) {
                return channel;
            }
            Process process = starting() ? null : spawn();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
            while (System.nanoTime() < deadline) {
                channel = connect(socket);
                if (channel != null) {
                    return channel;
                }
                if (process != null && !process.isAlive() && process.exitValue() != 0) {
                    throw new IOException("the resident process did not start (exit " + process.exitValue() + "; see "
                            + log + ")");
                }
                try {
                    // a new process binds its socket within a second or two: ask again shortly
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while the resident process started");
                }
            }
            throw new IOException("the resident process did not answer on " + socket + " within " + START_SECONDS
                    + " s (see " + log + ")");
        }
    }

    /** Connects to a socket, or returns null when nothing listens on it (no file, or a process that has ended). */
    static SocketChannel connect(Path socket) {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try {
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
                return channel;
            } catch (IOException e) {
                channel.close();
                return null;
            }
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Sends one request and relays its answer.
     *
     * @return the exit code, or -1 when the process says the call is the client's to run
     */
    static int request(SocketChannel channel, Wire.Request request, PrintStream out, PrintStream err)
            throws IOException {
        var output = new DataOutputStream(Channels.newOutputStream(channel));
        request.write(output);
        var input = new DataInputStream(new BufferedInputStream(Channels.newInputStream(channel), 1 << 16));
        return Wire.relay(input, out, err);
    }

    /**
     * Takes a lock file's lock, or returns null when a process holds it (another one, or this JVM: two processes of one
     * key in a test).
     */
    static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    /** Returns whether a process holds a key's lock file: one that is starting, serving or ending. */
    static boolean held(Path lock) throws IOException {
        if (!Files.exists(lock)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
            FileLock taken = tryLock(channel);
            if (taken == null) {
                return true;
            }
            taken.release();
            return false;
        }
    }

    /** How long the log of a process that has ended is kept. */
    private static final java.time.Duration KEEP_LOGS = java.time.Duration.ofDays(1);

    /**
     * Tidies the files of a key whose process is not running (nothing holds its lock; a process that is starting holds
     * it from its first moment): a socket left by a process that was killed goes at once, the rest (its lock, its log,
     * a warm-up trace) when the log is a day old, so that a process's last words can still be read the day it ended.
     */
    private static void tidy(Path dir, String key) {
        try {
            if (held(dir.resolve(key + ".lock"))) {
                return;
            }
            Files.deleteIfExists(dir.resolve(key + ".sock"));
            Path log = dir.resolve(key + ".log");
            boolean old = !Files.exists(log) || Files.getLastModifiedTime(log).toInstant()
                    .isBefore(java.time.Instant.now().minus(KEEP_LOGS));
            if (old) {
                for (String suffix : List.of(".log", ".warmup.json", ".lock")) {
                    Files.deleteIfExists(dir.resolve(key + suffix));
                }
            }
        } catch (IOException e) {
            // left for the next look: a file another process is writing, say
        }
    }

    /**
     * {@code vantage daemon status|start|stop}: lists this user's resident processes, starts the one of this folder
     * (and waits until it answers), or stops them, one line each.
     *
     * @return 0, or 1 if the folder cannot be used or the process not started
     */
    public static int command(DaemonCommand.Action action, Map<String, String> env, PrintStream out,
            PrintStream err) {
        if (action == DaemonCommand.Action.start) {
            try (SocketChannel channel = Target.of(env, Path.of("").toAbsolutePath()).start()) {
                request(channel, new Wire.Request(Wire.STATUS, null, Map.of(), List.of()), out, err);
                return 0;
            } catch (IOException | LaunchException e) {
                err.println("vantage: daemon: " + e.getMessage());
                return 1;
            }
        }
        Path dir;
        List<String> keys = new ArrayList<>();
        try {
            dir = folder(env);
            try (Stream<Path> files = Files.list(dir)) {
                files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".lock")).sorted()
                        .forEach(n -> keys.add(n.substring(0, n.length() - ".lock".length())));
            }
        } catch (IOException e) {
            err.println("vantage: daemon: " + e.getMessage());
            return 1;
        }
        int answered = 0;
        for (String key : keys) {
            Path socket = dir.resolve(key + ".sock");
            SocketChannel channel = connect(socket);
            if (channel == null) {
                tidy(dir, key);
                continue;
            }
            try (channel) {
                request(channel, new Wire.Request(action == DaemonCommand.Action.stop ? Wire.STOP : Wire.STATUS,
                        null, Map.of(), List.of()), out, err);
                answered++;
            } catch (IOException e) {
                err.println("vantage: daemon: " + socket.getFileName() + " did not answer: " + e.getMessage());
            }
        }
        if (answered == 0) {
            out.println("no resident analysis process is running (sockets in " + dir + ")");
        }
        return 0;
    }
}
