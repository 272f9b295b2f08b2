package dev.vantage.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code vantage board}: serves the web UI of a log directory's runs until stopped. Listens on the loopback address
 * unless {@code --host} names another, and then answers only requests that carry the access token of the URL it
 * prints.
 */
@Command(name = "board", description = "serve a web UI of the runs in a log directory: Vantage runs, PyTorch traces,"
        + " .pftrace files; runs written while it is up appear without a restart",
        footer = {"", "Prints the URL to open. DIR may hold Vantage profile directories (runs.jsonl), PyTorch's traces"
                + " (*.pt.trace.json, .json.gz, TensorBoard's plugins/profile/<run>/<worker>.pt.trace.json) and"
                + " .pftrace files, at any depth; only files under DIR are served, and symbolic links are not"
                + " followed. On another address than the loopback one (--host 0.0.0.0), every request must carry"
                + " the access token of the printed URL (or --token). A bundle that registers a BoardView service adds"
                + " a view: copy it into the deploy directory of a running board."})
public final class BoardCommand implements Verb {

    /** The port TensorBoard serves on, and the board by default. */
    public static final int DEFAULT_PORT = 6006;

    /** The address the board listens on by default: this machine only. */
    public static final String DEFAULT_HOST = "127.0.0.1";

    @Option(names = "--logdir", paramLabel = "DIR", converter = Converters.GivenPath.class,
            description = "the folder of runs to show; default $VANTAGE_PROFILER_DIR, else ./vantage_profiles")
    private Path logdir;

    @Option(names = "--port", paramLabel = "PORT", converter = AnyPort.class,
            description = "the port to listen on (default 6006; 0 for any free port)")
    private int port = DEFAULT_PORT;

    @Option(names = "--host", paramLabel = "HOST", description = "the address to listen on (default 127.0.0.1);"
            + " any other than a loopback address needs the access token")
    private String host = DEFAULT_HOST;

    @Option(names = "--token", paramLabel = "TOKEN", description = "the access token (default: a random one when"
            + " --host is not a loopback address); letters, digits, '-' and '_', at least 16")
    private String token;

    @Mixin
    private PlatformOptions platform;

    private boolean loopback;

    @Override
    public Host host() {
        return Host.SERVICE;
    }

    @Override
    public void check(Map<String, String> env) throws UsageException {
        try {
            logdir = ProfileDirectory.resolve(logdir, env);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (!Files.isDirectory(logdir)) {
            throw new UsageException("--logdir " + logdir + ": " + (Files.exists(logdir) ? "not a directory"
                    : "no such directory"));
        }
        if (!Files.isReadable(logdir)) {
            throw new UsageException("--logdir " + logdir + ": not readable");
        }
        try {
            InetAddress address = InetAddress.getByName(host);
            loopback = address.isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new UsageException("--host " + host + ": no such address on this machine");
        }
        if (port != 0) {
            // a port another program holds is refused now, in one line, rather than by the HTTP service later
            try (java.net.ServerSocket probe = new java.net.ServerSocket()) {
                probe.setReuseAddress(true);
                probe.bind(new java.net.InetSocketAddress(host, port));
            } catch (java.io.IOException e) {
                throw new UsageException("--port " + port + ": in use on " + host + " (another board, or"
                        + " TensorBoard?); choose another, or --port 0 for any free one");
            }
        }
        if (token != null && !token.matches("[A-Za-z0-9_-]{16,}")) {
            throw new UsageException("--token: letters, digits, '-' and '_', at least 16 of them");
        }
        if (token == null && !loopback) {
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            token = HexFormat.of().formatHex(random);
        }
    }

    /** Returns the log directory, absolute and normalized. */
    public Path logdir() {
        return logdir;
    }

    /** Returns the port, 0 for any free one. */
    public int port() {
        return port;
    }

    /** Returns the address to listen on, as given. */
    public String listenHost() {
        return host;
    }

    /** Returns whether the address is a loopback one. */
    public boolean loopback() {
        return loopback;
    }

    /** Returns the access token every request must carry, or null when none is needed (loopback, none given). */
    public String token() {
        return token;
    }

    /** Returns the deploy directory and JMX flags. */
    public PlatformOptions platform() {
        return platform;
    }

    /** A TCP port, or 0 for any free one. */
    static final class AnyPort extends Converters.Range {
        AnyPort() {
            super(0, 65_535);
        }
    }
}
