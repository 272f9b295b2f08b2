package dev.vantage.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Fuzzes the {@code .pftrace} reader (Perfetto's protobuf trace: Vantage's perfetto exporter's and torch's), as
 * {@code report} reads such a file. Seeds: traces Vantage's perfetto exporter wrote, whole and cut off.
 *
 * <p>Refusal: an {@code IOException} naming the file in one line ({@link TraceFiles}); anything else is a finding.
 */
class PerfettoTraceFuzzTest {

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 2000)
    void readsOrRefusesInOneLine(byte[] content) {
        TraceFiles.read("trace.pftrace", content);
    }
}
