package ai.onnxruntime;

import java.util.Map;
import java.util.Set;

/**
 * A stand-in with the shape of ONNX Runtime's {@code OrtSession} (1.16's constructors and {@code run} overloads),
 * for the weaver's tests: the weaver chooses ONNX Runtime's classes by name, and these let a test watch what the
 * woven code does without ONNX Runtime's natives. Not ONNX Runtime.
 */
public class OrtSession implements AutoCloseable {

    private final String model;
    private boolean closed;

    OrtSession(OrtEnvironment env, String modelPath, Object allocator, SessionOptions options) {
        this.model = modelPath;
        if (modelPath.isEmpty()) {
            throw new IllegalArgumentException("no model");
        }
    }

    OrtSession(OrtEnvironment env, byte[] model, Object allocator, SessionOptions options) {
        this.model = model.length + " bytes";
    }

    public Result run(Map<String, ?> inputs) {
        return run(inputs, Set.of("out"), null);
    }

    public Result run(Map<String, ?> inputs, Set<String> outputs, SessionOptions runOptions) {
        if (inputs.containsKey("bad")) {
            throw new IllegalStateException("ONNX Runtime refuses input 'bad'");
        }
        if (closed) {
            throw new IllegalStateException("closed");
        }
        return new Result(model + ": " + inputs.keySet());
    }

    public long totalOf(long a, double b, int c) {
        return a + (long) b + c;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** The stand-in of a run's result. */
    public static class Result {
        public final String text;

        public Result(String text) {
            this.text = text;
        }
    }

    /** The stand-in of {@code SessionOptions}. */
    public static class SessionOptions implements AutoCloseable {
        public int threads;

        public void setIntraOpNumThreads(int n) {
            threads = n;
        }

        public void addConfigEntry(String key, String value) {
        }

        public int getThreads() {
            return threads;
        }

        @Override
        public void close() {
        }
    }
}
