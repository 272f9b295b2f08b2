package dev.vantage.cli;

import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

/**
 * {@code vantage profile --list} and {@code vantage profile <pid> start|status|stop}: on-demand captures in a running
 * platform, reached through the JDK Attach API. The options object of a parsed command line is this class for
 * {@code --list}, else {@link Start}, {@link Status} or {@link Stop}, each with {@link #pid()} of its parent.
 */
@Command(name = "profile", description = "start, check or stop a capture in a running platform",
        synopsisSubcommandLabel = "start|status|stop",
        subcommands = {ProfileCommand.Start.class, ProfileCommand.Status.class, ProfileCommand.Stop.class},
        footer = {"", "Only the OS user that runs the platform can do it (the JDK Attach API's rule), and the"
                + " platform listens on nothing for it until asked. Exit codes: 0 done; 1 the platform refused (a"
                + " capture is already running, say) or cannot be reached; 2 bad arguments."})
public final class ProfileCommand implements Verb {

    @Option(names = "--list", description = "list the running Vantage platforms of this user: pid, distribution,"
            + " mode, command")
    private boolean list;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<pid>", converter = Converters.Pid.class,
            description = "the process id of the platform ('vantage profile --list' shows them)")
    private Long pid;

    @Override
    public Host host() {
        return Host.LAUNCHER;
    }

    @Override
    public void check(Map<String, String> env) throws UsageException {
        if (list && pid != null) {
            throw new UsageException("profile: --list takes no process id, not '" + pid + "'");
        }
        if (!list && pid == null) {
            throw new UsageException("profile needs a process id or --list; see 'vantage profile --help'");
        }
        if (!list) {
            throw new UsageException("'profile " + pid + "' needs start, status or stop");
        }
    }

    /** Returns whether to list the running platforms. */
    public boolean list() {
        return list;
    }

    /** Returns the target process, or 0 with {@code --list}. */
    public long pid() {
        return pid == null ? 0 : pid;
    }

    /** What {@code start}, {@code status} and {@code stop} share: the process id given before them. */
    abstract static class OnProcess implements Verb {
        @ParentCommand
        private ProfileCommand parent;

        @Override
        public Host host() {
            return Host.LAUNCHER;
        }

        @Override
        public void check(Map<String, String> env) throws UsageException {
            String action = getClass().getAnnotation(Command.class).name();
            if (parent.list) {
                throw new UsageException("profile: --list takes no '" + action + "'");
            }
            if (parent.pid == null) {
                throw new UsageException("'profile " + action + "' needs a process id before it: vantage profile"
                        + " <pid> " + action);
            }
        }

        /** Returns the target process. */
        public long pid() {
            return parent.pid();
        }
    }

    /** {@code profile <pid> start [flags]}: begins a capture; without a window it runs until {@code stop}. */
    @Command(name = "start", description = "begin a capture; without --duration or --iterations it runs until"
            + " 'stop'")
    public static final class Start extends OnProcess {
        @Mixin
        private CaptureOptions capture;

        @Override
        public void check(Map<String, String> env) throws UsageException {
            super.check(env);
            capture.check();
        }

        /** Returns the capture's window, activities, formats and place. */
        public CaptureOptions capture() {
            return capture;
        }
    }

    /** {@code profile <pid> status}. */
    @Command(name = "status", description = "what the platform's profiler is doing")
    public static final class Status extends OnProcess {
    }

    /** {@code profile <pid> stop}. */
    @Command(name = "stop", description = "end the capture now and write its traces")
    public static final class Stop extends OnProcess {
    }
}
