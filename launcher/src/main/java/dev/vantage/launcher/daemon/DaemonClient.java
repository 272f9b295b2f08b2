package dev.vantage.launcher.daemon;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.vantage.launcher.LaunchException;
import dev.vantage.launcher.Main;

/**
 * The client of a resident analysis process, which {@code vantage} starts instead of the launcher for {@code analyze},
 * {@code report}, {@code compare}, {@code merge}, {@code convert} and {@code runs} when {@code VANTAGE_DAEMON=1}: it
 * connects to the process of its key ({@link Daemons}), sends the call and writes the answer's output, errors and exit
 * code as its own. It loads no more than this package and the JDK's socket classes, so it starts in a fraction of the
 * launcher's time. When none answers, it runs the call itself and then starts one for the calls after it. When no
 * process can be had (the folder is not private, the socket's path is too long: one line says why), or the process
 * says the call is not its own, the call runs here too, in this JVM, as the launcher would run it.
 */
public final class DaemonClient {

    /** {@link #call}'s exit code when the call is to run in this JVM. */
    static final int RUN_HERE = Integer.MIN_VALUE;

    private DaemonClient() {
    }

    public static void main(String[] args) {
        Answer answer;
        try {
            answer = call(Arrays.asList(args), System.getenv(), Path.of("").toAbsolutePath(), System.out, System.err);
        } catch (IllegalArgumentException e) {
            System.err.println("vantage: " + e.getMessage());
            answer = new Answer(2, null);
        }
        int code = answer.code() == RUN_HERE ? Main.call(args) : answer.code();
        System.out.flush();
        if (answer.toStart() != null) {
            // after this call, not beside it: the process's start and warm-up take the cores while the caller reads
            try {
                answer.toStart().spawn();
            } catch (IOException e) {
                System.err.println("vantage: the resident process did not start: " + e.getMessage());
            }
        }
        System.exit(code);
    }

    /**
     * What became of a call.
     *
     * @param code its exit code, or {@link #RUN_HERE}
     * @param toStart the process to start once the call has run here (none answered and none is starting), or null
     */
    record Answer(int code, Daemons.Target toStart) {
    }

    /**
     * Runs one call in the resident process of its key. When none answers, the call runs here, so that no call waits
     * for a process to start, and the answer names the process to start once it has run (unless one is starting
     * already).
     *
     * @throws IllegalArgumentException if {@link Daemons#IDLE} is not a number of seconds
     */
    static Answer call(List<String> args, Map<String, String> env, Path cwd, PrintStream out, PrintStream err) {
        Daemons.Target target;
        SocketChannel channel;
        try {
            target = Daemons.Target.of(env, cwd);
            channel = Daemons.connect(target.socket());
            if (channel == null) {
                return new Answer(RUN_HERE, target.starting() ? null : target);
            }
        } catch (IOException | LaunchException e) {
            err.println("vantage: no resident process (" + e.getMessage() + "); this call runs in its own JVM");
            return new Answer(RUN_HERE, null);
        }
        try (SocketChannel open = channel) {
            int code = Daemons.request(open, new Wire.Request(Wire.CALL, target.identity(), env, args), out, err);
            return new Answer(code == -1 ? RUN_HERE : code, null);
        } catch (EOFException e) {
            err.println("vantage: the resident process ended during the call; its log is " + target.log());
            return new Answer(1, null);
        } catch (IOException e) {
            err.println("vantage: the resident process failed during the call (" + e.getMessage() + "); its log is "
                    + target.log());
            return new Answer(1, null);
        }
    }
}
