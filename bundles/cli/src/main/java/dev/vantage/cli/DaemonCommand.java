package dev.vantage.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vantage daemon [status|start|stop]}: the resident analysis processes of {@code VANTAGE_DAEMON=1}, one per
 * distribution, working folder and JVM options, which run {@code analyze}, {@code report}, {@code compare},
 * {@code merge}, {@code convert} and {@code runs} without starting a JVM for each call.
 */
@Command(name = "daemon", description = "show, start or stop the resident analysis processes of VANTAGE_DAEMON=1",
        footer = {"", "With VANTAGE_DAEMON=1 in the environment, analyze, report, compare, merge, convert and runs are"
                + " run by a process that stays up between calls (one per distribution, working folder and"
                + " VANTAGE_JAVA_OPTS), started in the background by the first call (which runs in its own JVM) or by"
                + " 'vantage daemon start' (which waits until it answers), and ended after VANTAGE_DAEMON_IDLE seconds"
                + " without a call (default 900). Its socket and log are in $VANTAGE_DAEMON_DIR, else"
                + " <temporary folder>/vantage-daemon-<user>, a folder only its owner may open."})
public final class DaemonCommand implements Verb {

    /** What to do with the resident processes. */
    public enum Action {
        /** List each one: its process, folder, age, idle time, calls and heap. */
        status,
        /** Start the one of this folder, distribution and JVM options, unless it runs, and wait until it answers. */
        start,
        /** Stop each one, after the call it is running. */
        stop
    }

    @Parameters(arity = "0..1", paramLabel = "ACTION", description = "status (the default), start or stop")
    private Action action = Action.status;

    /** Returns what to do. */
    public Action action() {
        return action;
    }

    @Override
    public Host host() {
        return Host.LAUNCHER;
    }
}
