package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;

import dev.vantage.trace.engine.read.OrtProfile;
import dev.vantage.trace.engine.read.OrtProfileReader;

/**
 * One run of a model before any work, on inputs of one sample: does ONNX Runtime take the inputs planned (a shape
 * the model's metadata allows may still fail in a node: a sequence longer than the model's position table, inputs
 * whose lengths disagree), and what is the largest tensor one sample makes. The run is profiled by ONNX Runtime
 * into a temporary folder, which goes with the session; the largest node output is its {@code output_size}.
 *
 * <p>A batch of {@code B} samples makes that tensor {@code B} times, in one allocation ONNX Runtime's arena cannot
 * split: {@code B} times its size is memory the run certainly needs (the sum of what it holds at once is more). A
 * run whose certain need is more than the machine's memory is refused before any work, rather than growing until
 * the kernel kills the process.
 */
final class TrialRun {

    private TrialRun() {
    }

    /**
     * Runs the model once on the plan's inputs and returns the largest output of any node, in bytes.
     *
     * @throws OrtException if ONNX Runtime cannot run the model on these inputs
     * @throws IOException if the profile cannot be written or read
     */
    static long largestNodeOutput(OrtEnvironment env, Path model, int threads, InputPlan plan)
            throws OrtException, IOException {
        Path dir = Files.createTempDirectory("vantage-ort-check-");
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            if (threads > 0) {
                options.setIntraOpNumThreads(threads);
            }
            // a failing node is the refusal's message; ONNX Runtime's own log of it would be a second, coloured one
            options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            options.enableProfiling(dir.resolve("check").toString());
            Map<String, OnnxTensor> inputs = plan.create(env, 0);
            try (OrtSession session = env.createSession(model.toString(), options)) {
                session.run(inputs).close();
                OrtProfile events = OrtProfileReader.read(Path.of(session.endProfiling()));
                long largest = 0;
                for (int i = 0; i < events.size; i++) {
                    if (events.kind[i] == OrtProfile.NODE && events.outputSize[i] != OrtProfile.ABSENT) {
                        largest = Math.max(largest, events.outputSize[i]);
                    }
                }
                return largest;
            } finally {
                inputs.values().forEach(OnnxTensor::close);
            }
        } finally {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** The machine's physical memory in bytes, or {@link Long#MAX_VALUE} when the JVM does not say. */
    static long physicalMemory() {
        try {
            Object total = java.lang.management.ManagementFactory.getPlatformMBeanServer().getAttribute(
                    new javax.management.ObjectName("java.lang:type=OperatingSystem"), "TotalMemorySize");
            return total instanceof Long l && l > 0 ? l : Long.MAX_VALUE;
        } catch (javax.management.JMException | RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }
}
