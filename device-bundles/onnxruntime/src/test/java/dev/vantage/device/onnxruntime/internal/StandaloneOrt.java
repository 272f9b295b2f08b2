package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.kit.ClockCalibration;
import dev.vantage.device.onnxruntime.OrtProfiling;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.trace.engine.read.OrtProfileReader;

/**
 * The ONNX Runtime bundle's reading and conversion steps, which are package-private, on a plain class path: a test
 * fixture the bundle publishes in its test jar, for the benchmarks.
 */
public final class StandaloneOrt {

    private StandaloneOrt() {
    }

    /**
     * The bundle's device on a plain class path, as SCR activates it: the profiling API an application calls, and
     * the activity source a profiler core binds.
     */
    public static final class Device implements AutoCloseable {
        private final OrtRuntime runtime;

        private Device(OrtRuntime runtime) {
            this.runtime = runtime;
        }

        public OrtProfiling profiling() {
            return runtime;
        }

        public DeviceActivitySource source() {
            return runtime;
        }

        @Override
        public void close() {
            runtime.deactivate();
        }
    }

    /** Starts the device writing ONNX Runtime's profiles into {@code profileDir}, with its default rotation. */
    public static Device device(Path profileDir) {
        return new Device(OrtRuntime.standalone(profileDir, false));
    }

    /**
     * Starts the device writing ONNX Runtime's profiles into {@code profileDir}; its first profiling session
     * rotates after {@code firstSessionRuns} runs ({@code Integer.MAX_VALUE}: never).
     */
    public static Device device(Path profileDir, int firstSessionRuns) {
        OrtRuntime runtime = OrtRuntime.standalone(profileDir, false);
        runtime.firstSessionRuns(firstSessionRuns);
        return new Device(runtime);
    }

    /** The inputs of a model for a batch and sequence length, seeded. */
    public static Map<String, OnnxTensor> inputs(OrtEnvironment env, OrtSession session, int batch, int seq)
            throws OrtException {
        return InputPlan.of(session.getInputInfo(), batch, seq, Map.of()).create(env, 1);
    }

    /** ONNX Runtime's own profile of {@code runs} runs, and the session's profiling start. */
    public record ProfileFile(Path file, long originEpochNanos, int nodes) {
    }

    /** Runs a model with ONNX Runtime's profiling on and returns its file. */
    public static ProfileFile profile(Path model, Path dir, int runs, int batch, int seq) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.enableProfiling(dir.resolve("bench").toString());
            try (OrtSession s = env.createSession(model.toString(), o)) {
                Map<String, OnnxTensor> in = inputs(env, s, batch, seq);
                for (int i = 0; i < runs; i++) {
                    s.run(in).close();
                }
                in.values().forEach(OnnxTensor::close);
                long origin = s.getProfilingStartTimeInNs();
                Path file = Path.of(s.endProfiling());
                return new ProfileFile(file, origin, OrtProfileReader.read(file).nodes());
            }
        }
    }

    /** Reads a profile file; returns its node events. */
    public static int read(Path file) throws IOException {
        return OrtProfileReader.read(file).nodes();
    }

    /**
     * What the window does with a file at stop: reads it and converts every event, against the Java side's runs
     * (made here from the file's own model runs, as a window records them) and a clock calibration.
     *
     * @return the device activities made
     */
    @SuppressWarnings("unchecked")
    public static int readAndConvert(ProfileFile p, List<?> runs, ClockCalibration clock) throws IOException {
        dev.vantage.trace.engine.read.OrtProfile e = OrtProfileReader.read(p.file());
        List<DeviceActivity> out = new ArrayList<>(e.size);
        Conversion.convert(e, p.originEpochNanos(), (List<Run>) runs, clock, 1, false, Long.MAX_VALUE, out,
                new Conversion.Counts());
        return out.size();
    }

    /** The Java side's runs of a file, as a window would have recorded them. */
    public static List<?> runsOf(ProfileFile p, ClockCalibration clock) throws IOException {
        dev.vantage.trace.engine.read.OrtProfile e = OrtProfileReader.read(p.file());
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < e.size; i++) {
            if (e.kind[i] == dev.vantage.trace.engine.read.OrtProfile.MODEL_RUN) {
                long start = clock.toHostNanos(p.originEpochNanos() + e.tsMicros[i] * 1000) - 2_000;
                long end = clock.toHostNanos(p.originEpochNanos() + (e.tsMicros[i] + e.durMicros[i]) * 1000)
                        + 2_000;
                runs.add(new Run(runs.size(), 1, e.tid[i], start, end, true));
            }
        }
        return runs;
    }

    /** A calibration of the wall clock against {@code nanoTime}, as a window takes it. */
    public static ClockCalibration clock() throws InterruptedException {
        ClockCalibration.Sample start = ClockCalibration.sample(OrtWindow::epochNanos);
        Thread.sleep(5);
        return ClockCalibration.fit(start, ClockCalibration.sample(OrtWindow::epochNanos), 1_000_000_000L);
    }
}
