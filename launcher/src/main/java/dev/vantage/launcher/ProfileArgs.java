package dev.vantage.launcher;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line of {@code vantage profile}, checked before anything attaches to a process: what to do, to which
 * process, and for {@code start} the options in the {@code key=value} form the platform's profiler MBean takes.
 *
 * @param action what to do
 * @param pid the target process, or 0 for {@link Action#LIST} and {@link Action#HELP}
 * @param options for {@link Action#START} the options the user gave, as {@code key=value}, without the ones the
 *        client adds itself ({@code trigger}, {@code requested_by}); empty otherwise
 */
record ProfileArgs(Action action, long pid, List<String> options) {

    /** What {@code vantage profile} does. */
    enum Action {
        /** Print the usage. */
        HELP,
        /** List the running Vantage platforms of this user. */
        LIST,
        /** Begin a capture in the target platform. */
        START,
        /** Show what the target platform's profiler is doing. */
        STATUS,
        /** End the target platform's capture. */
        STOP
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

    ProfileArgs {
        Objects.requireNonNull(action, "action");
        options = List.copyOf(options);
    }

    /**
     * Parses the arguments that follow the verb {@code profile}.
     *
     * @param args the arguments after {@code profile}
     * @param cwd the directory a relative {@code --dir} is resolved against (the client's working directory)
     * @throws IllegalArgumentException for anything malformed; the message names the bad value and fits on a line
     */
    static ProfileArgs parse(List<String> args, Path cwd) {
        Objects.requireNonNull(cwd, "cwd");
        if (args.contains("--help") || args.contains("-h")) {
            return new ProfileArgs(Action.HELP, 0, List.of());
        }
        if (args.isEmpty()) {
            throw new IllegalArgumentException("profile needs a process id or --list; see 'vantage profile --help'");
        }
        String first = args.get(0);
        if (first.equals("--list")) {
            if (args.size() > 1) {
                throw new IllegalArgumentException("--list takes no other arguments, not '" + args.get(1) + "'");
            }
            return new ProfileArgs(Action.LIST, 0, List.of());
        }
        long pid = pid(first);
        if (args.size() < 2) {
            throw new IllegalArgumentException("'profile " + first + "' needs start, status or stop");
        }
        String sub = args.get(1);
        List<String> rest = args.subList(2, args.size());
        switch (sub) {
            case "start":
                return new ProfileArgs(Action.START, pid, startOptions(rest, cwd));
            case "status":
            case "stop":
                if (!rest.isEmpty()) {
                    throw new IllegalArgumentException("'" + sub + "' takes no arguments, not '" + rest.get(0)
                            + "'");
                }
                return new ProfileArgs(sub.equals("stop") ? Action.STOP : Action.STATUS, pid, List.of());
            default:
                throw new IllegalArgumentException("unknown subcommand '" + sub + "' for 'profile'; use start,"
                        + " status or stop");
        }
    }

    private static long pid(String arg) {
        if (arg.startsWith("-")) {
            throw new IllegalArgumentException("unknown flag '" + arg + "' for 'profile'; see 'vantage profile"
                    + " --help'");
        }
        long pid;
        try {
            pid = Long.parseLong(arg);
        } catch (NumberFormatException e) {
            pid = -1;
        }
        if (pid <= 0) {
            throw new IllegalArgumentException("'" + arg + "' is not a process id; 'vantage profile --list' shows"
                    + " the running platforms");
        }
        return pid;
    }

    private static List<String> startOptions(List<String> args, Path cwd) {
        List<String> options = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (seen.contains(flag)) {
                throw new IllegalArgumentException(flag + " is given twice");
            }
            seen.add(flag);
            switch (flag) {
                case "--duration" -> options.add("duration=" + durationMillis(value(args, ++i, flag)));
                case "--iterations" -> options.add("iterations=" + iterations(value(args, ++i, flag)));
                case "--dir" -> options.add("dir=" + cwd.resolve(value(args, ++i, flag)).toAbsolutePath()
                        .normalize());
                case "--name" -> options.add("name=" + name(value(args, ++i, flag)));
                case "--activities", "--export" -> {
                    List<String> values = new ArrayList<>();
                    while (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
                        for (String v : args.get(++i).split(",")) {
                            if (!v.isBlank()) {
                                values.add(v.strip());
                            }
                        }
                    }
                    if (values.isEmpty()) {
                        throw new IllegalArgumentException(flag + " needs at least one value");
                    }
                    options.add(flag.substring(2) + "=" + String.join(",", values));
                }
                default -> throw new IllegalArgumentException("unknown flag '" + flag + "' for 'profile start'; see"
                        + " 'vantage profile --help'");
            }
        }
        if (seen.contains("--duration") && seen.contains("--iterations")) {
            throw new IllegalArgumentException("--duration and --iterations exclude each other: give one, or"
                    + " neither to capture until 'stop'");
        }
        return options;
    }

    /**
     * Converts a duration such as {@code 500ms}, {@code 2s}, {@code 1.5s} or {@code 1m} to milliseconds.
     *
     * @throws IllegalArgumentException if the text is not a number with one of those units, is zero, is not a
     *         whole number of milliseconds, or does not fit in a {@code long}
     */
    static long durationMillis(String text) {
        return durationMillis("--duration", text);
    }

    /**
     * Converts a duration such as {@code 500ms}, {@code 2s}, {@code 1.5s} or {@code 1m} to milliseconds, naming
     * {@code flag} in a refusal.
     *
     * @throws IllegalArgumentException as {@link #durationMillis(String)}, the message naming {@code flag}
     */
    static long durationMillis(String flag, String text) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException(flag + " takes a time such as 500ms, 2s, 1.5s or 1m, not '" + text
                    + "'");
        }
        int factor = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            default -> 60_000;
        };
        BigDecimal millis = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(factor));
        if (millis.signum() <= 0) {
            throw new IllegalArgumentException(flag + " must be more than zero, not '" + text + "'");
        }
        if (millis.stripTrailingZeros().scale() > 0) {
            throw new IllegalArgumentException(flag + " '" + text + "' is not a whole number of milliseconds");
        }
        try {
            return millis.longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(flag + " '" + text + "' is too long");
        }
    }

    private static int iterations(String text) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n <= 0) {
            throw new IllegalArgumentException("--iterations takes a positive whole number, not '" + text + "'");
        }
        return n;
    }

    private static String name(String text) {
        // the platform checks too; refusing here says so before anything attaches (DESIGN.md: bad input)
        if (text.contains("/") || text.contains("\\") || text.contains("..")) {
            throw new IllegalArgumentException("--name takes a plain file name, without '/', '\\' or '..', not '"
                    + text + "'");
        }
        return text;
    }

    private static String value(List<String> args, int i, String flag) {
        if (i >= args.size() || args.get(i).startsWith("--") || args.get(i).isEmpty()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args.get(i);
    }
}
