package dev.vantage.device.onnxruntime;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A session of a {@link ForeignModel} with ONNX Runtime's profiling on, made for one window of a profile (or part of
 * a long one). The device runs the application's calls on it while the window records, then ends it and reads its
 * profile. Implementations are thread-safe for {@link #run}, as an {@code OrtSession} is.
 */
@ConsumerType
public interface ForeignSession {

    /**
     * Returns when ONNX Runtime's profiling of this session began, in nanoseconds since the Unix epoch
     * ({@code OrtSession.getProfilingStartTimeInNs()}): the times of its profile count from there.
     *
     * @throws Exception if ONNX Runtime cannot tell
     */
    long profilingStartNanos() throws Exception;

    /**
     * Runs one call of the application on this session, as the application asked it of its own.
     *
     * @param call the call, as the caller of {@link AdoptedModel#run} handed it over
     * @return what the application's own session would have returned (an {@code OrtSession.Result})
     * @throws Exception what ONNX Runtime threw
     */
    Object run(Object call) throws Exception;

    /**
     * Returns the shapes of a call's inputs, one per input, in the order of {@link #inputTypes}; called only when
     * a profile records shapes. An input whose shape is unknown has an empty one.
     */
    long[][] inputShapes(Object call);

    /**
     * Returns the element types of a call's inputs as ONNX Runtime's {@code OnnxJavaType} names them ({@code FLOAT},
     * {@code INT64}, ...), as many as {@link #inputShapes}; the device writes them under torch's names. An input
     * whose type is unknown has an empty name.
     */
    String[] inputTypes(Object call);

    /**
     * Ends ONNX Runtime's profiling, which writes the profile file, and closes the session.
     *
     * @return the profile file's path
     * @throws Exception if ONNX Runtime fails to write or to close
     */
    String endProfiling() throws Exception;

    /**
     * Closes the session without ending its profile (after a failure); closing again does nothing.
     *
     * @throws Exception if ONNX Runtime fails to close
     */
    void close() throws Exception;
}
