package dev.vantage.device.onnxruntime;

import org.osgi.annotation.versioning.ConsumerType;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * Makes the options of an ONNX Runtime session, fresh at each call: {@link OrtProfiling} calls it for the plain
 * session and again for each profiling session of the same model, and turns profiling on in the ones it makes
 * for profiles. It closes the options once the session is made.
 */
@ConsumerType
@FunctionalInterface
public interface SessionOptionsFactory {

    /** ONNX Runtime's default options. */
    SessionOptionsFactory DEFAULTS = OrtSession.SessionOptions::new;

    /**
     * Returns new options.
     *
     * @throws OrtException if ONNX Runtime refuses an option
     */
    OrtSession.SessionOptions create() throws OrtException;
}
