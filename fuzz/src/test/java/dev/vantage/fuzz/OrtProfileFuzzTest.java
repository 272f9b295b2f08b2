package dev.vantage.fuzz;

import java.io.IOException;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.FuzzTest;

import dev.vantage.trace.engine.read.OrtProfile;
import dev.vantage.trace.engine.read.OrtProfileReader;

/**
 * Fuzzes the reader of ONNX Runtime's own profile JSON: as the device {@code ort} reads the file ONNX Runtime wrote
 * ({@link OrtProfileReader#read(Path, int)}, in one pass and split between threads), and as {@code report} reads it.
 * Seeds: profiles ONNX Runtime 1.29 wrote.
 *
 * <p>Refusal: an {@code IOException} naming the file in one line; anything else is a finding, and so is a split read
 * that gives other events than the one-pass read.
 */
class OrtProfileFuzzTest {

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 45)
    void readsOrRefusesInOneLine(byte[] content) {
        Path file = Refusals.file("profile.json", content);
        OrtProfile whole = null;
        try {
            whole = OrtProfileReader.read(file, 1);
        } catch (IOException e) {
            Refusals.expect(e, IOException.class, file.toString());
        }
        try {
            OrtProfile split = OrtProfileReader.read(file, 3);
            if (whole != null && split.size != whole.size) {
                throw new AssertionError("read in parts: " + split.size + " events, in one pass: " + whole.size);
            }
        } catch (IOException e) {
            Refusals.expect(e, IOException.class, file.toString());
        }
        TraceFiles.read("profile.json", content);
    }
}
