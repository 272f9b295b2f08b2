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
        java.nio.file.Path dir = Files.createTempDirectory("ort-contract");
        OrtRuntime runtime = OrtRuntime.standalone(dir, false);
        ProfiledSession session = runtime.open(Fixtures.miniLm(), ProfiledRunTest.AS_WRITTEN);
        Map<String, OnnxTensor> in = InputPlan.of(session.session().getInputInfo(), 1, 16, Map.of())
                .create(runtime.environment(), 3);
        return new ActivityFixture(runtime, () -> session.run(in).close(), () -> {
            in.values().forEach(OnnxTensor::close);
            session.close();
            runtime.deactivate();
            // the profiles were deleted once converted; the folder goes with the fixture
            try (java.util.stream.Stream<java.nio.file.Path> left = Files.walk(dir)) {
                left.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        });
    }
}
