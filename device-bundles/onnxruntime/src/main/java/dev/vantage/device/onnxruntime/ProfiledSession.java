package dev.vantage.device.onnxruntime;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * An ONNX Runtime session that profiles can record, opened by {@link OrtProfiling}. Thread-safe: runs may be made
 * from several threads at once, as on an {@code OrtSession}.
 *
 * <p>While no profile records ONNX Runtime's activity, {@link #run} is the plain session's run, after one
 * volatile read. While one records, the run goes to the profiling session of the current window and is recorded
 * as the CPU op {@code ort::run} (with its input shapes when the profile records shapes); the nodes ONNX Runtime
 * executed for it become the window's {@code ort} device work, linked to that op.
 */
@ProviderType
public interface ProfiledSession extends AutoCloseable {

    /** Returns what profiles call this session: the model's file name, or the name it was opened with. */
    String name();

    /**
     * Returns the plain session, for the model's metadata ({@code getInputInfo()}, {@code getOutputInfo()}, ...).
     * Runs made on it directly are not profiled; run through {@link #run} instead. Do not close it.
     */
    OrtSession session();

    /**
     * Runs the model, as {@code OrtSession.run(inputs)}.
     *
     * @return the outputs; close them when done
     * @throws OrtException if ONNX Runtime fails the run
     * @throws IllegalStateException if the session is closed
     */
    OrtSession.Result run(Map<String, ? extends OnnxTensorLike> inputs) throws OrtException;

    /**
     * Runs the model with run options, as {@code OrtSession.run(inputs, runOptions)}.
     *
     * @return the outputs; close them when done
     * @throws OrtException if ONNX Runtime fails the run
     * @throws IllegalStateException if the session is closed
     */
    OrtSession.Result run(Map<String, ? extends OnnxTensorLike> inputs, OrtSession.RunOptions runOptions)
            throws OrtException;

    /**
     * Closes the plain session and any profiling session; a window recording it keeps what it ran so far.
     * Closing again does nothing.
     *
     * @throws OrtException if ONNX Runtime fails to close a session
     */
    @Override
    void close() throws OrtException;
}
