package dev.vantage.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;

import dev.vantage.cli.Cli;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.cli.UsageException;

/**
 * Fuzzes the command line: the parsing and the option checks of every verb of the command tree ({@link Cli#parse}),
 * never running one. An input is the words after {@code vantage}, separated by NUL bytes, which a real command line
 * cannot hold. Seeds: the command lines of the README and the docs.
 *
 * <p>Refusal: a {@link UsageException} in one line (the launcher prints it and exits 2); anything else is a finding.
 */
class CommandLineFuzzTest {

    private static final Map<String, String> ENV = Map.of("VANTAGE_PROFILER_DIR",
            Refusals.file("profiles/.keep", new byte[0]).getParent().toString());

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 800)
    void parsesOrRefusesInOneLine(byte[] content) {
        List<String> args = Arrays.asList(new String(content, StandardCharsets.UTF_8).split("\0", -1));
        try {
            ParsedCommand command = Cli.parse(args, ENV);
            if (command.helpRequested() && command.help() == null) {
                throw new AssertionError("help asked for and none given: " + args);
            }
            if (command.options() == null || command.verb().isEmpty()) {
                throw new AssertionError("parsed without a verb: " + args);
            }
        } catch (UsageException e) {
            Refusals.expect(e, UsageException.class, "");
        }
    }
}
