package dev.vantage.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;

import dev.vantage.cli.AgentOptions;
import dev.vantage.cli.UsageException;

/**
 * Fuzzes the agent's option string, what follows {@code -javaagent:vantage-agent.jar=} ({@link AgentOptions#parse}).
 * The agent reads no other file of its own: the ONNX Runtime profiles it reads are {@link OrtProfileFuzzTest}'s, the
 * {@code .cfg} files of its deploy directory the on-demand target's. Seeds: the option strings of docs/agent.md.
 *
 * <p>Refusal: a {@link UsageException} in one line (the agent prints it and the application runs unprofiled);
 * anything else is a finding.
 */
class AgentOptionsFuzzTest {

    private static final Map<String, String> ENV = Map.of("VANTAGE_PROFILER_DIR",
            Refusals.file("profiles/.keep", new byte[0]).getParent().toString());

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 30000)
    void parsesOrRefusesInOneLine(byte[] content) {
        String text = new String(content, StandardCharsets.UTF_8);
        try {
            AgentOptions options = AgentOptions.parse(text, ENV);
            if (options.start() == null) {
                throw new AssertionError("options without a start: '" + text + "'");
            }
        } catch (UsageException e) {
            Refusals.expect(e, UsageException.class, "");
        }
    }
}
