package dev.vantage.cli;

import java.util.List;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The flags of the Gogo shell's profiler commands, typed and checked as the command line's are:
 * {@code profiler:start} takes the flags of {@code vantage profile <pid> start}, {@code profiler:table} a sort key
 * and a row limit.
 */
public final class ShellCommands {

    private ShellCommands() {
    }

    /** {@code profiler:start [flags]}. */
    @Command(name = "profiler:start", description = "start an on-demand capture in this platform")
    public static final class Start {
        @Mixin
        private CaptureOptions capture;

        /** Returns the capture's window, activities, formats and place. */
        public CaptureOptions capture() {
            return capture;
        }
    }

    /** {@code profiler:table [--sort-by KEY] [--limit N]}. */
    @Command(name = "profiler:table", description = "the last capture's table")
    public static final class Table {
        @Option(names = "--sort-by", paramLabel = "KEY", completionCandidates = RunCommand.SortKeys.class,
                description = "torch's sort key (default self_cpu_time_total)")
        private String sortBy = "self_cpu_time_total";

        @Option(names = "--limit", paramLabel = "N", converter = Converters.RowLimit.class,
                description = "rows, -1 for all (default 20)")
        private int limit = 20;

        /** Returns the sort key as given. */
        public String sortBy() {
            return sortBy;
        }

        /** Returns the row limit, -1 for all. */
        public int limit() {
            return limit;
        }
    }

    /**
     * Parses a shell command's flags.
     *
     * @param type {@link Start} or {@link Table}
     * @throws UsageException for an unknown flag or a bad value; one line naming it
     */
    public static <T> T parse(Class<T> type, List<String> args) throws UsageException {
        CommandLine line = new CommandLine(type);
        line.setExpandAtFiles(false);
        try {
            line.parseArgs(args.toArray(new String[0]));
        } catch (ParameterException e) {
            throw new UsageException(e.getMessage().replace('\n', ' ').strip());
        }
        T options = line.getCommand();
        if (options instanceof Start s) {
            s.capture.check();
        }
        return options;
    }
}
