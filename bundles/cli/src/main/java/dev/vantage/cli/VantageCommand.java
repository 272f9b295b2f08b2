package dev.vantage.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.TypeConversionException;

/**
 * The root of the command tree: the verbs in the order {@code vantage --help} lists them, and the flags every verb
 * takes ({@code --distribution}, {@code --help}).
 */
@Command(name = "vantage",
        description = "Vantage: a modular profiler platform for tensor runtimes on the JVM.",
        customSynopsis = "vantage [--distribution NAME] <verb> [flags]",
        subcommands = {
            RunCommand.class,
            ListCommand.Workloads.class,
            ListCommand.Bundles.class,
            ListCommand.Devices.class,
            ListCommand.Exporters.class,
            ServeCommand.class,
            BoardCommand.class,
            ShellCommand.class,
            ProfileCommand.class,
            LaunchCommand.class,
            ListCommand.Features.class,
            AssembleCommand.class,
            AnalysisCommand.Runs.class,
            AnalysisCommand.Compare.class,
            AnalysisCommand.Report.class,
            AnalysisCommand.Analyze.class,
            AnalysisCommand.Convert.class,
            AnalysisCommand.Merge.class,
            DaemonCommand.class,
            VantageCommand.Completion.class,
            VantageCommand.Help.class
        },
        footer = {"", "'vantage <verb> --help' explains a verb. Exit codes: 0 done, 1 the work failed, 2 the command"
                + " line is wrong (refused in one line before any work starts)."})
final class VantageCommand {

    @Option(names = "--distribution", paramLabel = "NAME", scope = ScopeType.INHERIT, converter = Name.class,
            description = "the bundle set to run: full or minimal, or a distribution assembled beside them"
                    + " (default: the one this launcher belongs to)")
    String distribution;

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT, description = "show this help")
    boolean help;

    @Option(names = "--version", description = "print the framework, the JVM and every bundle with its version")
    boolean version;

    /** A distribution's name: a folder beside the launcher's, never a path. */
    static final class Name implements ITypeConverter<String> {
        @Override
        public String convert(String text) {
            if (text.isEmpty() || text.contains("/") || text.contains("\\") || text.contains("..")) {
                throw new TypeConversionException("'" + text + "' is not a name such as full or minimal");
            }
            return text;
        }
    }

    /** {@code vantage completion}: the bash completion script of this command tree. */
    @Command(name = "completion", description = "print bash completion for vantage: source <(./vantage completion)")
    static final class Completion implements Verb {
        @Override
        public Host host() {
            return Host.LAUNCHER;
        }
    }

    /** {@code vantage help [VERB]}: the help of the command line or of one verb. */
    @Command(name = "help", description = "show the help of vantage, or of a verb")
    static final class Help implements Verb {
        @Parameters(arity = "0..1", paramLabel = "VERB", description = "the verb to explain")
        String verb;

        @Override
        public Host host() {
            return Host.LAUNCHER;
        }
    }
}
