package dev.vantage.device.onnxruntime.internal;

import java.nio.file.Path;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.SessionOptionsFactory;

/**
 * A model of the ONNX Runtime this bundle embeds, from a file or from bytes, with the options factory its
 * {@link dev.vantage.device.onnxruntime.ProfiledSession} was opened with: makes the plain session and the profiling
 * ones.
 */
final class EmbeddedModel implements ProfilingSession.Model {

    private final OrtRuntime runtime;
    private final String name;
    private final Path path;
    private final byte[] bytes;
    private final SessionOptionsFactory options;

    EmbeddedModel(OrtRuntime runtime, String name, Path path, byte[] bytes, SessionOptionsFactory options) {
        this.runtime = runtime;
        this.name = name;
        this.path = path;
        this.bytes = bytes;
        this.options = options;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String runtimeVersion() {
        return runtime.version();
    }

    /** Creates an ONNX Runtime session of the model; with profiling on when a prefix is given. */
    OrtSession create(String profilePrefix) throws OrtException {
        OrtEnvironment env = runtime.environment();
        OrtSession.SessionOptions o = options.create();
        try {
            if (profilePrefix != null) {
                o.enableProfiling(profilePrefix);
            }
            return path != null ? env.createSession(path.toString(), o) : env.createSession(bytes, o);
        } finally {
            o.close();
        }
    }

    @Override
    public Session openProfiling(String profilePrefix) throws OrtException {
        return new Session(create(profilePrefix));
    }

    /** A profiling session of the embedded ONNX Runtime. */
    record Session(OrtSession ort) implements ProfilingSession {

        @Override
        public long profilingStartNanos() throws OrtException {
            return ort.getProfilingStartTimeInNs();
        }

        @Override
        public String endProfiling() throws OrtException {
            try {
                return ort.endProfiling();
            } finally {
                ort.close();
            }
        }

        @Override
        public void close() throws OrtException {
            ort.close();
        }
    }
}
