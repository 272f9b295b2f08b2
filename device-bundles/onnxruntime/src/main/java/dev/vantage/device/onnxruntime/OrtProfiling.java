package dev.vantage.device.onnxruntime;

import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;

/**
 * Opens ONNX Runtime sessions that profiles can record; registered as a service by the ONNX Runtime device bundle.
 * Thread-safe.
 *
 * <p>ONNX Runtime can only profile a session from its creation to {@code endProfiling()}, and only once. So a
 * {@link ProfiledSession} holds a plain session for every run made while no profile records, and while a profile
 * records ONNX Runtime's activity ({@code ORT}) it runs on a second session of the same model created with
 * profiling on; each window of the profile gets new ones, and a long window changes to a new one before ONNX
 * Runtime's cap of 1,000,000 events per session. The {@code options} factory is therefore called more than once:
 * once now, and once for every profiling session.
 *
 * <pre>{@code
 * @Reference OrtProfiling ort;
 * ...
 * try (ProfiledSession session = ort.open(modelPath, () -> {
 *         OrtSession.SessionOptions o = new OrtSession.SessionOptions();
 *         o.setIntraOpNumThreads(2);
 *         return o;
 *     });
 *     OrtSession.Result result = session.run(inputs)) {
 *     ...
 * }
 * }</pre>
 */
@ProviderType
public interface OrtProfiling {

    /**
     * Returns ONNX Runtime's environment, the one per process its sessions live in; the first call loads ONNX
     * Runtime's natives.
     *
     * @throws OrtException if ONNX Runtime cannot load on this platform
     */
    OrtEnvironment environment() throws OrtException;

    /**
     * Opens a session on a model file.
     *
     * @param model the {@code .onnx} file
     * @param options makes the options of each ONNX Runtime session made for this model; the options it returns
     *     are the caller's own (they are closed once the session is created)
     * @return the session; close it when done
     * @throws OrtException if ONNX Runtime cannot load the model
     * @throws NullPointerException if an argument is null
     */
    ProfiledSession open(Path model, SessionOptionsFactory options) throws OrtException;

    /**
     * Opens a session on a model held in memory. The bytes are kept (not copied) for the profiling sessions; do not
     * change them while the session is open.
     *
     * @param name what profiles call the session, such as the model's file name
     * @param model the model, as an {@code .onnx} file holds it
     * @param options makes the options of each ONNX Runtime session made for this model
     * @return the session; close it when done
     * @throws OrtException if ONNX Runtime cannot load the model
     * @throws NullPointerException if an argument is null
     */
    ProfiledSession open(String name, byte[] model, SessionOptionsFactory options) throws OrtException;

    /**
     * Records a model that another ONNX Runtime runs, such as an application's own, reached by the Vantage agent:
     * windows that record {@code ORT} make a profiling session of it ({@link ForeignModel#openProfiling}) and record
     * the calls handed to {@link AdoptedModel#run} as they record the runs of a {@link ProfiledSession}. Nothing
     * of the model is created now.
     *
     * @param model how to make the model's profiling sessions
     * @return the model as the device records it; close it when the application closes its session
     * @throws NullPointerException if the model is null
     * @since 1.1
     */
    AdoptedModel adopt(ForeignModel model);
}
