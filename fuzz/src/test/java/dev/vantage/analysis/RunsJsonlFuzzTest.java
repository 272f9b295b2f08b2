package dev.vantage.analysis;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.FuzzTest;

import dev.vantage.analysis.registry.RunRegistry;
import dev.vantage.fuzz.Refusals;

/**
 * Fuzzes the reader of {@code runs.jsonl}, the run registry every profiled run adds a line to: {@code vantage runs}
 * as a table and as JSON, over a profile directory holding the input as its registry. Seeds: registries Vantage
 * wrote. In this package because the verb's class is the library's own.
 *
 * <p>Refusal: an {@code IllegalArgumentException} in one line, which the verb prints and exits 2 with (a registry
 * of which no line is a run, or not UTF-8). Every warning about a skipped line is one line too. Anything else is a
 * finding.
 */
class RunsJsonlFuzzTest {

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 6000)
    void listsOrRefusesInOneLine(byte[] content) {
        Path dir = Refusals.file(RunRegistry.FILE_NAME, content).getParent();
        for (boolean json : new boolean[] {false, true}) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            try (PrintStream out = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
                    PrintStream errors = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                RunsCommand.run(new Options.Runs(dir, json), out, errors);
            } catch (IllegalArgumentException e) {
                Refusals.expect(e, IllegalArgumentException.class, "runs: ");
            }
            for (String line : err.toString(StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty() && !line.startsWith("vantage: runs: warning: ")) {
                    throw new AssertionError("a warning is one line: '" + line + "'");
                }
            }
        }
    }
}
