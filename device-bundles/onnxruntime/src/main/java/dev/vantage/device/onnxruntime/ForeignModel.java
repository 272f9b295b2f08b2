package dev.vantage.device.onnxruntime;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A model that an ONNX Runtime of another class loader runs: an application's own ONNX Runtime (1.16 or later,
 * whichever version it ships), which the Vantage agent reaches from outside the application. The device makes the
 * profiling sessions of its windows through it ({@link OrtProfiling#adopt}), so that the application's runs are
 * recorded as the device records the runs of its own sessions.
 *
 * <p>Implemented by whoever reaches that ONNX Runtime. Its ONNX Runtime objects cross as {@code Object}: their
 * classes are not this bundle's. Called from the device's background threads and from the threads that run the
 * model; implementations are thread-safe.
 */
@ConsumerType
public interface ForeignModel {

    /** Returns what profiles call the model, such as its file name; never null or empty. */
    String name();

    /** Returns the version of the ONNX Runtime that runs the model, such as {@code 1.20.0}. */
    String runtimeVersion();

    /**
     * Creates a new session of the model, with the options the application gave its own and ONNX Runtime's profiling
     * on ({@code SessionOptions.enableProfiling(profilePrefix)}).
     *
     * @param profilePrefix the prefix ONNX Runtime names the session's profile file by
     * @return the session; the device ends it ({@link ForeignSession#endProfiling}) or closes it
     * @throws Exception if ONNX Runtime cannot create it; the device records the failure in the trace and leaves
     *     the model's runs to the application's session
     */
    ForeignSession openProfiling(String profilePrefix) throws Exception;
}
