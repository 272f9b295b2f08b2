package dev.vantage.device.onnxruntime.internal;

/**
 * A session with ONNX Runtime's profiling on, made for a window ({@link Twin}): of the embedded ONNX Runtime
 * ({@link EmbeddedModel}) or of an adopted model's own ({@link AdoptedModelImpl}).
 */
interface ProfilingSession {

    /** When ONNX Runtime's profiling of the session began, in nanoseconds since the Unix epoch. */
    long profilingStartNanos() throws Exception;

    /** Ends the profiling (ONNX Runtime writes its file) and closes the session; returns the file. */
    String endProfiling() throws Exception;

    /** Closes the session without ending its profile, after a failure. */
    void close() throws Exception;

    /** A model the device makes profiling sessions of. */
    interface Model {

        /** What profiles call the model. */
        String name();

        /** The version of the ONNX Runtime that runs it. */
        String runtimeVersion();

        /** Makes a session of the model with profiling on, its file named from the prefix. */
        ProfilingSession openProfiling(String profilePrefix) throws Exception;
    }

    /**
     * One run on a twin's session: what it does, and its inputs' shapes and types, asked only when a profile
     * records.
     *
     * @param <T> what the run returns
     * @param <E> what the run throws
     */
    interface Call<T, E extends Exception> {

        /** Runs on the session. */
        T run(ProfilingSession session) throws E;

        /** The inputs' shapes, as the session's ONNX Runtime tells them. */
        long[][] shapes(ProfilingSession session);

        /** The inputs' element types, under torch's names. */
        String[] types(ProfilingSession session);
    }
}
