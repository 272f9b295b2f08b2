package dev.vantage.device.onnxruntime.internal;

import java.nio.file.Files;
import java.util.Map;

import ai.onnxruntime.OnnxTensor;
import dev.vantage.device.contract.ActivitySourceContract;
import dev.vantage.device.onnxruntime.ProfiledSession;

/** The device contract's session rules over ONNX Runtime's source: a run of LangChain4j's MiniLM per op. */
public class OrtActivityContractTest extends ActivitySourceContract {

    @Override
    protected ActivityFixture create() throws Exception {
        OrtRuntime runtime = OrtRuntime.standalone(Files.createTempDirectory("ort-contract"), false);
        ProfiledSession session = runtime.open(Fixtures.miniLm(), ProfiledRunTest.AS_WRITTEN);
        Map<String, OnnxTensor> in = InputPlan.of(session.session().getInputInfo(), 1, 16, Map.of())
                .create(runtime.environment(), 3);
        return new ActivityFixture(runtime, () -> session.run(in).close(), () -> {
            in.values().forEach(OnnxTensor::close);
            session.close();
            runtime.deactivate();
        });
    }
}
