package dev.vantage.benchmarks;

import java.util.Map;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.internal.StandaloneOrt;

/**
 * The application whose start {@link AgentOverhead} times with and without the agent: it opens LangChain4j's
 * quantized all-MiniLM-L6-v2 with ONNX Runtime, runs it once, prints {@code ran} and exits. It knows nothing of
 * Vantage.
 */
public final class AgentStartApp {

    private AgentStartApp() {
    }

    public static void main(String[] args) throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions o = OrtServedThroughput.options();
                OrtSession session = env.createSession(OrtServedThroughput.model().toString(), o)) {
            Map<String, OnnxTensor> inputs = StandaloneOrt.inputs(env, session, 1, 32);
            try (OrtSession.Result r = session.run(inputs)) {
                System.out.println("ran " + r.size());
            }
            inputs.values().forEach(OnnxTensor::close);
        }
    }
}
