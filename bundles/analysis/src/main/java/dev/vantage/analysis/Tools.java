package dev.vantage.analysis;

import java.io.PrintStream;
import java.util.List;

/**
 * The entry the launcher calls for the analysis verbs, through a class loader over a distribution's
 * {@code lib/analysis/}: {@code runs}, {@code compare}, {@code report} and {@code analyze}. Each verb checks all of
 * its input before it reads or writes anything; bad input is exit code 2 with one line naming the value, a failure
 * while working is exit code 1.
 */
public final class Tools {

    /** The verbs this entry answers, in the order {@code vantage --help} lists them. */
    public static final List<String> VERBS = List.of("runs", "compare", "report", "analyze");

    private Tools() {
    }

    /**
     * Runs one verb.
     *
     * @param verb one of {@link #VERBS}
     * @param args the arguments after the verb
     * @param out where results go
     * @param err where errors go, one line each, prefixed {@code vantage: }
     * @return the exit code
     */
    public static int run(String verb, List<String> args, PrintStream out, PrintStream err) {
        try {
            return switch (verb) {
                case "runs" -> RunsCommand.run(args, out, err);
                case "compare" -> CompareCommand.run(args, out);
                case "report" -> ReportCommand.run(args, out);
                case "analyze" -> AnalyzeCommand.run(args, out);
                default -> throw new IllegalArgumentException("unknown analysis verb '" + verb + "'");
            };
        } catch (IllegalArgumentException e) {
            err.println("vantage: " + e.getMessage());
            return 2;
        } catch (java.io.UncheckedIOException e) {
            err.println("vantage: " + verb + ": " + e.getCause().getMessage());
            return 1;
        } catch (Exception e) {
            err.println("vantage: " + verb + " failed: " + e);
            return 1;
        }
    }
}
