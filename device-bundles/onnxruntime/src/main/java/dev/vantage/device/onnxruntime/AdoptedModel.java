package dev.vantage.device.onnxruntime;

import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A {@link ForeignModel} the ONNX Runtime device records ({@link OrtProfiling#adopt}). While no profile records
 * ONNX Runtime's activity ({@code ORT}), the application runs its own session; while one does, each call is handed
 * to {@link #run}, which runs it on the window's profiling session and records it as the CPU op {@code ort::run}
 * (with its input shapes when the profile records shapes), its nodes as the window's {@code ort} device work.
 * Thread-safe.
 */
@ProviderType
public interface AdoptedModel extends AutoCloseable {

    /** Returns what profiles call the model ({@link ForeignModel#name()}). */
    String name();

    /**
     * Runs a call on the profiling session of the window that records the model now.
     *
     * @param call the application's call, handed to {@link ForeignSession#run}
     * @return the result, or empty when no window records the model: the caller then runs its own session. A
     *     result is never null
     * @throws Exception what the profiling session's run threw; the caller may run its own session instead
     */
    Optional<Object> run(Object call) throws Exception;

    /**
     * Forgets the model: windows stop making sessions of it, and a window recording it keeps what it ran so far.
     * Closing again does nothing.
     */
    @Override
    void close();
}
