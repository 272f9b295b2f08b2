package dev.vantage.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.UsageMessageSpec;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code vantage} command line: parses and checks a command line against the one command tree, and gives its
 * help, its verb list and its bash completion. Every method builds a fresh tree, so it is thread-safe.
 *
 * <pre>{@code
 * ParsedCommand c = Cli.parse(List.of(args), System.getenv());
 * if (c.helpRequested()) { System.out.print(c.help()); return 0; }
 * RunCommand run = c.options(RunCommand.class);
 * }</pre>
 */
public final class Cli {

    /** The words of {@code vantage --version}, which runs in the platform. */
    public static final List<String> VERSION = List.of("--version");

    private Cli() {
    }

    /**
     * Parses and checks a command line as {@link #parse} does, and says a refusal the one way every caller says it: one
     * line on {@code err}, {@code vantage: } and the message.
     *
     * @return the verb and its checked options, or the help asked for; null when refused (exit code 2)
     * @since 1.2
     */
    public static ParsedCommand parseOrRefuse(List<String> args, Map<String, String> env, PrintStream err) {
        try {
            return parse(args, env);
        } catch (UsageException e) {
            err.println("vantage: " + e.getMessage());
            return null;
        }
    }

    /**
     * Parses and checks a command line.
     *
     * @param args the arguments after {@code vantage}; not null
     * @param env the environment of the process that will run the verb ({@code RANK} and the like stand in for
     *     flags); not null
     * @return the verb and its checked options, or the help asked for
     * @throws UsageException for anything that cannot run: no verb, an unknown verb or flag, a bad value, flags that
     *     need each other; the message is one line naming it
     */
    public static ParsedCommand parse(List<String> args, Map<String, String> env) throws UsageException {
        CommandLine root = commandLine();
        ParseResult result;
        try {
            result = root.parseArgs(args.toArray(new String[0]));
        } catch (ParameterException e) {
            throw new UsageException(message(root, e));
        }
        List<CommandLine> chain = result.asCommandLineList();
        CommandLine leaf = chain.get(chain.size() - 1);
        List<String> verb = new ArrayList<>();
        chain.subList(1, chain.size()).forEach(c -> verb.add(c.getCommandName()));
        String distribution = ((VantageCommand) root.getCommand()).distribution;
        for (CommandLine c : chain) {
            if (c.isUsageHelpRequested()) {
                return new ParsedCommand(args, verb.isEmpty() ? List.of("help") : verb, new VantageCommand.Help(),
                        distribution, usage(leaf));
            }
        }
        if (leaf == root) {
            if (((VantageCommand) root.getCommand()).version) {
                return new ParsedCommand(args, VERSION, () -> Host.PLATFORM, distribution, null);
            }
            throw new UsageException("which verb? 'vantage --help' lists them");
        }
        Verb options = leaf.getCommand();
        if (options instanceof VantageCommand.Help h) {
            return new ParsedCommand(args, verb, h, distribution, help(h.verb));
        }
        options.check(env);
        return new ParsedCommand(args, verb, options, distribution, null);
    }

    /** Returns the verbs, in the order {@code vantage --help} lists them. */
    public static List<String> verbs() {
        return List.copyOf(commandLine().getSubcommands().keySet());
    }

    /**
     * Returns the help of the command line ({@code verb} null) or of one verb.
     *
     * @throws UsageException if there is no such verb
     */
    public static String help(String verb) throws UsageException {
        CommandLine root = commandLine();
        if (verb == null) {
            return usage(root);
        }
        CommandLine sub = root.getSubcommands().get(verb);
        if (sub == null) {
            throw new UsageException(unknownVerb(verb));
        }
        return usage(sub);
    }

    /** Returns a bash script that completes {@code vantage}'s verbs and flags: {@code source <(vantage completion)}. */
    public static String bashCompletion() {
        return AutoComplete.bash("vantage", commandLine());
    }

    /** Builds the command tree, with the house style of help on every verb. */
    static CommandLine commandLine() {
        CommandLine root = new CommandLine(new VantageCommand());
        root.setCaseInsensitiveEnumValuesAllowed(true);
        // a word is the word typed: picocli would read "@x" as a file of more arguments (found by fuzzing: "@."
        // escaped as its InitializationException), and a profile name or path starting with '@' as that file
        root.setExpandAtFiles(false);
        root.setUsageHelpWidth(110);
        root.getSubcommands().get("launch").setStopAtPositional(true);
        style(root);
        return root;
    }

    private static void style(CommandLine line) {
        UsageMessageSpec usage = line.getCommandSpec().usageMessage();
        usage.synopsisHeading("usage: ").abbreviateSynopsis(true).commandListHeading("%nverbs:%n")
                .optionListHeading("%nflags:%n").parameterListHeading("%n").descriptionHeading("%n")
                .sortOptions(false);
        for (CommandLine sub : line.getSubcommands().values()) {
            style(sub);
        }
    }

    private static String usage(CommandLine line) {
        return line.getUsageMessage(Ansi.OFF);
    }

    private static String unknownVerb(String verb) {
        return "unknown verb '" + verb + "'; verbs: " + String.join(", ", verbs());
    }

    /** One line naming the bad input, with where the verb's help is. */
    private static String message(CommandLine root, ParameterException e) {
        CommandLine where = e.getCommandLine();
        String verb = qualifiedName(where);
        if (e instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            if (where == root && !arg.startsWith("-")) {
                return unknownVerb(arg);
            }
            return "unknown " + (arg.startsWith("-") ? "flag" : "argument") + " '" + arg + "'"
                    + (where == root ? "" : " for '" + verb + "'") + "; see 'vantage "
                    + (where == root ? "" : verb + " ") + "--help'";
        }
        String text = e.getMessage().replace('\n', ' ').strip();
        if (e instanceof MissingParameterException) {
            text = "missing " + text.replaceFirst("^Missing ", "");
        } else {
            text = text.replaceFirst("^Invalid value for (option|positional parameter at index \\d+) ", "");
        }
        return (where == root ? "" : verb + ": ") + text + "; see 'vantage " + (where == root ? "" : verb + " ")
                + "--help'";
    }

    private static String qualifiedName(CommandLine line) {
        CommandSpec spec = line.getCommandSpec();
        return spec.qualifiedName(" ").replaceFirst("^vantage ?", "");
    }
}
