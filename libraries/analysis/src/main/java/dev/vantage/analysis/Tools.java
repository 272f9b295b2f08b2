package dev.vantage.analysis;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import dev.vantage.trace.engine.device.DeviceAnalyses;
import dev.vantage.trace.engine.read.DamagedTraceException;
import dev.vantage.cli.AnalysisCommand;
import dev.vantage.cli.Cli;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.cli.Verb;

/**
 * The entry the launcher calls for the analysis verbs, through a class loader over a distribution's
 * {@code lib/analysis/}: {@code runs}, {@code compare}, {@code report}, {@code analyze}, {@code convert} and {@code merge}, with their
 * options as the command tree ({@link Cli}) parsed them. The one class of the library that knows the command tree: it
 * hands each verb its options as plain values ({@link Options}). Each verb checks all of its input before it reads or
 * writes anything; bad input is exit code 2 with one line naming the value, a failure while working is exit code 1.
 */
public final class Tools {

    private Tools() {
    }

    /**
     * Runs one verb with the options the command tree parsed and checked.
     *
     * @param command an analysis verb's command line, parsed by {@link Cli}
     * @param out where results go
     * @param err where errors go, one line each, prefixed {@code vantage: }
     * @return the exit code
     */
    public static int run(ParsedCommand command, PrintStream out, PrintStream err) {
        String verb = command.name();
        try {
            Verb options = command.options();
            if (options instanceof AnalysisCommand.Runs r) {
                return RunsCommand.run(new Options.Runs(r.dir(), r.json()), out, err);
            } else if (options instanceof AnalysisCommand.Compare c) {
                return CompareCommand.run(new Options.Compare(c.runs(), c.dir(), c.output(), c.top(),
                        Options.Format.valueOf(c.format().name()), c.strict()), out, err);
            } else if (options instanceof AnalysisCommand.Report r) {
                return ReportCommand.run(new Options.Report(r.input(), r.dir(), r.output(), r.strict()), out, err);
            } else if (options instanceof AnalysisCommand.Analyze a) {
                return AnalyzeCommand.run(new Options.Analyze(a.inputs(), a.analyses(),
                        Options.Engine.valueOf(a.engine().name()), a.remote(), Options.Format.valueOf(a.format().name()),
                        a.output(), a.memoryLimit(), settings(a)), out, err);
            } else if (options instanceof AnalysisCommand.Convert c) {
                return ConvertCommand.run(new Options.Convert(c.inputs(), c.output(), c.jobId(), c.strict()), out, err);
            } else if (options instanceof AnalysisCommand.Merge m) {
                return MergeCommand.run(new Options.Merge(m.inputs(), m.output(), m.strict()), out, err);
            }
            throw new IllegalArgumentException("'" + verb + "' is not an analysis verb");
        } catch (IllegalArgumentException | DamagedTraceException e) {
            // bad input, found before or while reading it: the user's words, exit 2
            err.println("vantage: " + e.getMessage());
            return 2;
        } catch (java.io.UncheckedIOException e) {
            err.println("vantage: " + verb + ": " + reason(e));
            return 1;
        } catch (java.io.IOException e) {
            err.println("vantage: " + verb + ": " + reason(e));
            return 1;
        } catch (OutOfMemoryError e) {
            err.println("vantage: " + verb + " ran out of memory (" + e.getMessage() + "); give the JVM more with"
                    + " VANTAGE_JAVA_OPTS, such as -Xmx4g");
            return 1;
        } catch (Exception e) {
            err.println("vantage: " + verb + " failed: " + reason(e));
            return 1;
        }
    }

    /** The device analyses' settings of an {@code analyze} command line: its flags, the command tree's defaults. */
    static DeviceAnalyses.Settings settings(AnalysisCommand.Analyze a) {
        return new DeviceAnalyses.Settings(a.runtimeCutoff(), a.launchDelayCutoff(), a.kernelWait(),
                a.maxQueueLength(), a.operator(), a.minPatternLength());
    }

    /**
     * What went wrong, in words without the library's class names: a file system failure names its file and the
     * reason ({@code /out/x: No space left on device}), an unchecked I/O failure its cause.
     */
    static String reason(Throwable e) {
        if (e instanceof java.io.UncheckedIOException u && u.getCause() != null
                && (u.getMessage() == null || u.getMessage().equals(u.getCause().toString()))) {
            return reason(u.getCause());
        }
        if (e instanceof java.nio.file.NoSuchFileException f) {
            return f.getFile() + ": no such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException f) {
            return f.getFile() + ": permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return (f.getFile() == null ? "" : f.getFile() + ": ") + f.getReason();
        }
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return message;
    }

    /**
     * Parses a command line (the words after {@code vantage}) and runs it, as the launcher does: a refused command
     * line is one line on {@code err} and exit code 2.
     *
     * @param env the environment the defaults come from ({@code VANTAGE_PROFILER_DIR})
     */
    public static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
        ParsedCommand command = Cli.parseOrRefuse(args, env, err);
        if (command == null) {
            return 2;
        }
        if (command.helpRequested()) {
            out.print(command.help());
            return 0;
        }
        return run(command, out, err);
    }
}
