package dev.vantage.launcher;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import dev.vantage.cli.AssembleCommand;
import dev.vantage.cli.Cli;
import dev.vantage.cli.DaemonCommand;
import dev.vantage.cli.Host;
import dev.vantage.cli.LaunchCommand;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.launcher.analysis.AnalysisTools;
import dev.vantage.launcher.assemble.Assemble;
import dev.vantage.launcher.attach.ProfileClient;
import dev.vantage.launcher.daemon.Daemons;
import dev.vantage.launcher.platform.Boot;
import dev.vantage.launcher.ranks.Launch;

/**
 * The {@code vantage} command: checks the whole command line against the command tree ({@link Cli}) before anything
 * starts, prints help without booting anything, and runs the verb where {@link dev.vantage.cli.Host} says:
 * here ({@code features}, {@code assemble}, {@code profile}, {@code launch}, {@code completion}), in the analysis
 * library of {@code lib/analysis/} ({@code runs}, {@code compare}, {@code report}, {@code analyze}), or in the
 * booted platform ({@link Boot}). No platform class is on this class path: only Felix, the command tree and
 * picocli.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(call(args));
    }

    /** Runs one command line as {@link #main} does, and returns its exit code instead of exiting. */
    public static int call(String[] args) {
        try {
            return run(List.of(args), System.out, System.err);
        } catch (Throwable e) {
            return exitCode(e, System.err);
        }
    }

    /**
     * Says in one line on {@code err} what stopped a verb, and returns its exit code: 2 for input found wrong after
     * parsing, 1 for anything else (a resident analysis process answers its clients' failures the same way).
     */
    public static int exitCode(Throwable e, PrintStream err) {
        if (e instanceof IllegalArgumentException) {
            err.println("vantage: " + e.getMessage());
            return 2;
        } else if (e instanceof LaunchException) {
            err.println("vantage: " + e.getMessage());
        } else if (e instanceof OutOfMemoryError) {
            // the platform's threads are not daemons: without System.exit the JVM would wait for them forever
            err.println("vantage: the JVM ran out of memory (" + e.getMessage() + "); give it more with"
                    + " VANTAGE_JAVA_OPTS, such as -Xmx4g");
        } else if (e instanceof Exception || e instanceof Error) {
            err.println("vantage: the platform failed: " + e);
        }
        return 1;
    }

    /**
     * Runs one command line.
     *
     * @return the exit code: 0 done, 1 the work failed, 2 the command line is wrong
     * @throws IllegalArgumentException for input found wrong after parsing (an unknown distribution, say): exit 2
     * @throws LaunchException when something cannot be brought up: exit 1
     */
    static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        return run(args, System.getenv(), out, err, new Hosts() {
            @Override
            public int analysis(Path home, ParsedCommand command, PrintStream o, PrintStream e) throws Exception {
                return AnalysisTools.run(home, command, o, e);
            }

            @Override
            public int other(Path home, ParsedCommand command, PrintStream o, PrintStream e) throws Exception {
                return switch (command.host()) {
                    case LAUNCHER -> here(command, home, o, e);
                    case PLATFORM, SERVICE -> Boot.run(home, command);
                    case ANALYSIS -> throw new IllegalStateException("an analysis verb is the analysis library's");
                };
            }
        });
    }

    /** What runs a parsed command: the analysis verbs in one place, every other verb in another. */
    public interface Hosts {
        /** Runs {@code runs}, {@code compare}, {@code report}, {@code analyze}, {@code convert} or {@code merge}. */
        int analysis(Path home, ParsedCommand command, PrintStream out, PrintStream err) throws Exception;

        /** Runs a verb of the launcher's or the platform's. */
        int other(Path home, ParsedCommand command, PrintStream out, PrintStream err) throws Exception;
    }

    /**
     * Runs one command line with an environment of its own (the defaults come from it): checks it against the
     * command tree, answers help and refusals, and hands the verb to {@code hosts}.
     */
    public static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err, Hosts hosts)
            throws Exception {
        ParsedCommand command = Cli.parseOrRefuse(args, env, err);
        if (command == null) {
            return 2;
        }
        if (command.helpRequested()) {
            out.print(command.help());
            return 0;
        }
        Path home = Distribution.home(command.distribution());
        return command.host() == Host.ANALYSIS ? hosts.analysis(home, command, out, err)
                : hosts.other(home, command, out, err);
    }

    private static int here(ParsedCommand command, Path home, PrintStream out, PrintStream err) throws Exception {
        // features come from, and are resolved against, the full distribution when it is there
        Path full = home.resolveSibling("full");
        Path source = Files.isDirectory(full.resolve("bundles")) ? full : home;
        return switch (command.name()) {
            case "features" -> Assemble.features(source, out);
            case "assemble" -> Assemble.assemble(command.options(AssembleCommand.class), source,
                    Distribution.launcherJar(), out);
            case "profile" -> ProfileClient.run(command, out, err);
            case "launch" -> Launch.run(command.options(LaunchCommand.class), command.distribution(), out, err);
            case "daemon" -> Daemons.command(command.options(DaemonCommand.class).action(), System.getenv(), out, err);
            case "completion" -> {
                out.print(Cli.bashCompletion());
                yield 0;
            }
            default -> throw new IllegalStateException("no launcher verb '" + command.name() + "'");
        };
    }
}
