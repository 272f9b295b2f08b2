package dev.vantage.launcher.daemon;

import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.ProcessBuilder.Redirect;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.vantage.launcher.Distribution;
import dev.vantage.launcher.LaunchException;
import dev.vantage.launcher.Main;

/**
 * The client of a resident analysis process, which {@code vantage} starts instead of the launcher for {@code analyze},
 * {@code report}, {@code compare}, {@code merge}, {@code convert} and {@code runs} when {@code VANTAGE_DAEMON=1}: it
 * connects to the process of its key ({@link Daemons}), starting one when none answers, sends the call and writes the
 * answer's output, errors and exit code as its own. It loads no more than this package and the JDK's socket classes,
 * so it starts in a fraction of the launcher's time. When no process can be had (the folder is not private, the
 * socket's path is too long), or the process says the call is not its own, the call runs here, in this JVM, as the
 * launcher would run it, after one line saying why.
 */
public final class DaemonClient {

    /** How long a new process may take to answer on its socket. */
    private static final long START_SECONDS = 60;

    /** The resident process's main class, named so that the client does not load it. */
    static final String SERVER = "dev.vantage.launcher.daemon.DaemonServer";

    /** {@link #call}'s answer when the call is to run in this JVM. */
    static final int RUN_HERE = Integer.MIN_VALUE;

    private DaemonClient() {
    }

    public static void main(String[] args) {
        int code;
        try {
            code = call(Arrays.asList(args), System.getenv(), Path.of("").toAbsolutePath(), System.out, System.err);
        } catch (IllegalArgumentException e) {
            System.err.println("vantage: " + e.getMessage());
            code = 2;
        }
        if (code == RUN_HERE) {
            Main.main(args);
            return;
        }
        System.out.flush();
        System.exit(code);
    }

    /**
     * Runs one call in the resident process of its key.
     *
     * @return the call's exit code, or {@link #RUN_HERE}
     * @throws IllegalArgumentException if {@link Daemons#IDLE} is not a number of seconds
     */
    static int call(List<String> args, Map<String, String> env, Path cwd, PrintStream out, PrintStream err) {
        long idle = Daemons.idleSeconds(env);
        Path dir;
        SocketChannel channel;
        Path log;
        String identity;
        try {
            dir = Daemons.folder(env);
            Path jar = Distribution.launcherJar();
            // this JVM's java (ProcessHandle's command line would start a thread pool: a tenth of the client's start)
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String options = env.getOrDefault("VANTAGE_JAVA_OPTS", "");
            identity = Daemons.identity(jar, cwd, options, java);
            String key = Daemons.key(identity);
            Path socket = dir.resolve(key + ".sock");
            log = dir.resolve(key + ".log");
            channel = Daemons.connect(socket);
            if (channel == null) {
                channel = start(socket, log, command(java, options, jar, dir, identity, idle), cwd);
            }
        } catch (IOException | LaunchException e) {
            err.println("vantage: no resident process (" + e.getMessage() + "); this call runs in its own JVM");
            return RUN_HERE;
        }
        try (SocketChannel open = channel) {
            int code = Daemons.request(open, new Wire.Request(Wire.CALL, identity, env, args),
                    out, err);
            return code == -1 ? RUN_HERE : code;
        } catch (EOFException e) {
            err.println("vantage: the resident process ended during the call; its log is " + log);
            return 1;
        } catch (IOException e) {
            err.println("vantage: the resident process failed during the call (" + e.getMessage() + "); its log is "
                    + log);
            return 1;
        }
    }

    /** The command line of a new process: in its own session, when {@code setsid} is there, so a Ctrl-C is the client's. */
    static List<String> command(String java, String options, Path jar, Path dir, String identity, long idle) {
        List<String> command = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            command.add("/usr/bin/setsid");
        }
        command.add(java);
        for (String option : options.trim().split("\\s+")) {
            if (!option.isEmpty()) {
                command.add(option);
            }
        }
        command.addAll(List.of("-cp", jar.toString(), SERVER, dir.toString(),
                identity, Long.toString(idle)));
        return command;
    }

    /** Starts a process and waits until it answers on its socket. */
    private static SocketChannel start(Path socket, Path log, List<String> command, Path cwd) throws IOException {
        Process process = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(Redirect.appendTo(log.toFile())).redirectInput(Redirect.from(new File("/dev/null")))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (System.nanoTime() < deadline) {
            SocketChannel channel = Daemons.connect(socket);
            if (channel != null) {
                return channel;
            }
            if (!process.isAlive() && process.exitValue() != 0) {
                throw new IOException("it did not start (exit " + process.exitValue() + "; see " + log + ")");
            }
            try {
                // a new process binds its socket within a second: ask again shortly
                process.waitFor(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while it started");
            }
        }
        throw new IOException("it did not answer on " + socket + " within " + START_SECONDS + " s (see " + log + ")");
    }
}
