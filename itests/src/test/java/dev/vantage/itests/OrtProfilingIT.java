package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.OrtProfiling;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/**
 * A bundle of its own (this test's probe) that creates ONNX Runtime sessions through the device bundle's exported
 * API, in the full distribution: it imports {@code ai.onnxruntime} and {@code dev.vantage.device.onnxruntime} from
 * the device bundle, runs LangChain4j's MiniLM, and a profile records its runs and their nodes, as the plugin guide
 * shows.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class OrtProfilingIT {

    @Inject
    private OrtProfiling ort;

    @Inject
    private Profiler profiler;

    @Configuration
    public Option[] config() throws IOException {
        return Distributions.options("full", Paths.get("target/it-deploy-ort").toAbsolutePath());
    }

    @Test
    public void aBundlesOwnSessionsAreProfiledThroughOrtProfiling() throws Exception {
        Path model = Path.of(System.getProperty("vantage.test.models", "target/models"), "all-minilm-l6-v2-q.onnx");
        List<ProfileResult> cycles = new ArrayList<>();
        try (ProfiledSession session = ort.open(model, () -> {
            OrtSession.SessionOptions o = new OrtSession.SessionOptions();
            o.setIntraOpNumThreads(1);
            return o;
        })) {
            assertEquals(Set.of("input_ids", "attention_mask", "token_type_ids"), session.session().getInputNames());
            long[] ids = new long[2 * 16];
            Arrays.fill(ids, 1037);
            long[] ones = new long[ids.length];
            Arrays.fill(ones, 1);
            long[] shape = {2, 16};
            Map<String, OnnxTensor> in = new LinkedHashMap<>();
            in.put("input_ids", OnnxTensor.createTensor(ort.environment(), LongBuffer.wrap(ids), shape));
            in.put("attention_mask", OnnxTensor.createTensor(ort.environment(), LongBuffer.wrap(ones), shape));
            in.put("token_type_ids", OnnxTensor.createTensor(ort.environment(), LongBuffer.wrap(new long[32]),
                    shape));
            // before a profile: ONNX Runtime's plain run
            session.run(in).close();
            Profile p = profiler.profile().activities(Set.of(Activity.CPU, Activity.of("ORT")))
                    .schedule(Schedule.of(0, 1, 2, 1, 0)).recordShapes(true).onTraceReady(cycles::add).start();
            for (int step = 0; step < 4; step++) {
                try (OrtSession.Result r = session.run(in)) {
                    assertEquals(List.of(2L, 16L, 384L), Arrays.stream(((ai.onnxruntime.TensorInfo) r.get(0)
                            .getInfo()).getShape()).boxed().toList());
                }
                p.step();
            }
            p.stop();
            in.values().forEach(OnnxTensor::close);
        }
        assertEquals(1, cycles.size());
        Map<Long, Integer> nodesPerRun = new HashMap<>();
        int runs = 0;
        EventCursor c = cycles.get(0).trace().events();
        while (c.next()) {
            if (c.kind() == EventKind.CPU_OP && c.name().equals("ort::run")) {
                runs++;
                assertEquals(3, c.inputCount());
                assertTrue(Arrays.equals(new long[] {2, 16}, c.inputShape(0)));
                assertEquals("long", c.inputType(0));
            }
            if (c.kind() == EventKind.KERNEL) {
                assertEquals("ort", c.deviceType());
                assertTrue(c.correlationId() >= 0);
                nodesPerRun.merge(c.correlationId(), 1, Integer::sum);
            }
        }
        assertEquals("steps 1 and 2", 2, runs);
        assertEquals(2, nodesPerRun.size());
        assertTrue(nodesPerRun.toString(), nodesPerRun.values().stream().allMatch(n -> n > 100));
    }
}
