package dev.vantage.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes the Chrome trace reader: Kineto's JSON in every variant torch has written and torch's legacy array (and
 * ONNX Runtime's profile, when the first bytes turn into one), as {@code report} reads a {@code .json} file. Seeds:
 * real torch, HTA and Kineto traces cut down to a few KB, Vantage's own, and the damage torch really writes.
 *
 * <p>Refusal: an {@code IOException} naming the file in one line ({@link TraceFiles}); anything else is a finding.
 */
class ChromeTraceFuzzTest {

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 260)
    void readsOrRefusesInOneLine(byte[] content) {
        TraceFiles.read("trace.json", content);
    }
}
