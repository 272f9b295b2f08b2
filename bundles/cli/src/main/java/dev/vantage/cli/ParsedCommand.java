package dev.vantage.cli;

import java.util.List;
import java.util.Objects;

/**
 * A checked command line: the words it was parsed from, the verb, its options, the flags every verb takes, and
 * whether the user asked for help instead of work. Immutable, but for what a verb's options resolve while it runs
 * (such as {@link RunCommand#useClaimedName}).
 */
public final class ParsedCommand {

    private final List<String> args;
    private final List<String> verb;
    private final Verb options;
    private final String distribution;
    private final String help;

    ParsedCommand(List<String> args, List<String> verb, Verb options, String distribution, String help) {
        this.args = List.copyOf(args);
        this.verb = List.copyOf(verb);
        this.options = options;
        this.distribution = distribution;
        this.help = help;
    }

    /**
     * Returns the words after {@code vantage} this command was parsed from, as given: what a run records as its
     * command line.
     *
     * @since 1.2
     */
    public List<String> args() {
        return args;
    }

    /**
     * Returns the verb's words, such as {@code [run]} or {@code [profile, start]}; {@code [--version]} for
     * {@code vantage --version}.
     */
    public List<String> verb() {
        return verb;
    }

    /** Returns the first word of the verb, such as {@code profile}. */
    public String name() {
        return verb.get(0);
    }

    /** Returns where the verb runs. */
    public Host host() {
        return options.host();
    }

    /** Returns the verb's options, checked. */
    public Verb options() {
        return options;
    }

    /**
     * Returns the verb's options as the given type.
     *
     * @throws ClassCastException if the verb's options are of another type
     */
    public <T extends Verb> T options(Class<T> type) {
        return type.cast(Objects.requireNonNull(options));
    }

    /** Returns {@code --distribution}, or null for the launcher's own. */
    public String distribution() {
        return distribution;
    }

    /** Returns whether the user asked for help: then {@link #help()} is what to print, with exit code 0. */
    public boolean helpRequested() {
        return help != null;
    }

    /** Returns the help text to print, or null when no help was asked for. */
    public String help() {
        return help;
    }
}
