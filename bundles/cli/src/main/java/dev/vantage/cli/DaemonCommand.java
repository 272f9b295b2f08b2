package dev.vantage.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code vantage daemon [status|stop]}: the resident analysis processes that {@code VANTAGE_DAEMON=1} starts, one per
 * distribution and working folder, which run {@code analyze}, {@code report}, {@code compare}, {@code merge},
 * {@code convert} and {@code runs} without starting a JVM for each call.
 */
@Command(name = "daemon", description = "show or stop the resident analysis processes that VANTAGE_DAEMON=1 starts",
        footer = {"", "With VANTAGE_DAEMON=1 in the environment, analyze, report, compare, merge, convert and runs are"
                + " run by a process that stays up between calls (one per distribution, working folder and"
                + " VANTAGE_JAVA_OPTS), started by the first call and ended after VANTAGE_DAEMON_IDLE seconds without"
                + " one (default 900). Its socket and log are in $VANTAGE_DAEMON_DIR, else"
                + " <temporary folder>/vantage-daemon-<user>, a folder only its owner may open."})
public final class DaemonCommand implements Verb {

    /** What to do with the resident processes. */
    public enum Action {
        /** List each one: its process, folder, age, idle time, calls and heap. */
        status,
        /** Stop each one, after the call it is running. */
        stop
    }

    @Parameters(arity = "0..1", paramLabel = "ACTION", description = "status (the default) or stop")
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
