package dev.vantage.device.onnxruntime.internal;

import java.util.Map;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.ProfiledSession;

/**
 * A {@link ProfiledSession} of the embedded ONNX Runtime: a plain session for the runs made while no window records
 * the model, and the model's {@link ModelTwins} for the others.
 */
final class ProfiledSessionImpl extends TwinnedModel implements ProfiledSession {

    private final OrtRuntime runtime;
    private final OrtSession plain;

    ProfiledSessionImpl(OrtRuntime runtime, EmbeddedModel model) throws OrtException {
        super(runtime, model);
        this.runtime = runtime;
        this.plain = model.create(null);
    }

    @Override
    public OrtSession session() {
        return plain;
    }

    @Override
    public OrtSession.Result run(Map<String, ? extends OnnxTensorLike> inputs) throws OrtException {
        return run(inputs, null);
    }

    @Override
    public OrtSession.Result run(Map<String, ? extends OnnxTensorLike> inputs, OrtSession.RunOptions runOptions)
            throws OrtException {
        OrtSession.Result recorded = twins().runOnTwin(new ProfilingSession.Call<OrtSession.Result, OrtException>() {
            @Override
            public OrtSession.Result run(ProfilingSession session) throws OrtException {
                OrtSession s = ((EmbeddedModel.Session) session).ort();
                return runOptions == null ? s.run(inputs) : s.run(inputs, runOptions);
            }

            @Override
            public long[][] shapes(ProfilingSession session) {
                return Twin.shapes(inputs);
            }

            @Override
            public String[] types(ProfilingSession session) {
                return Twin.types(inputs);
            }
        });
        if (recorded != null) {
            return recorded;
        }
        return runOptions == null ? plain.run(inputs) : plain.run(inputs, runOptions);
    }

    @Override
    public void close() throws OrtException {
        if (twins().close()) {
            runtime.closed(this);
            plain.close();
        }
    }
}
