package dev.vantage.launcher.daemon;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.vantage.cli.DaemonCommand;

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
     * {@code vantage daemon status|stop}: lists this user's resident processes, or stops them, one line each.
     *
     * @return 0, or 1 if the folder cannot be used
     */
    public static int command(DaemonCommand.Action action, Map<String, String> env, PrintStream out,
            PrintStream err) {
        Path dir;
        List<Path> sockets = new ArrayList<>();
        try {
            dir = folder(env);
            try (Stream<Path> files = Files.list(dir)) {
                files.filter(f -> f.getFileName().toString().endsWith(".sock")).sorted().forEach(sockets::add);
            }
        } catch (IOException e) {
            err.println("vantage: daemon: " + e.getMessage());
            return 1;
        }
        int answered = 0;
        for (Path socket : sockets) {
            SocketChannel channel = connect(socket);
            if (channel == null) {
                continue; // a process that ended without removing its socket: the next one of its key replaces it
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
