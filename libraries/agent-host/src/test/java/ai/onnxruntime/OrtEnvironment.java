package ai.onnxruntime;

/** A stand-in with the shape of ONNX Runtime's {@code OrtEnvironment}, for the weaver's tests. Not ONNX Runtime. */
public class OrtEnvironment {

    public OrtSession createSession(String path, OrtSession.SessionOptions options) {
        return new OrtSession(this, path, null, options);
    }

    public OrtSession createSession(byte[] model, OrtSession.SessionOptions options) {
        return new OrtSession(this, model, null, options);
    }
}
