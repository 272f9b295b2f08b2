package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;

/** Inputs planned from real and tiny models' own metadata, and run by ONNX Runtime. */
public class InputPlanTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final OrtEnvironment env = OrtEnvironment.getEnvironment();

    private Map<String, NodeInfo> inputsOf(Path model) throws Exception {
        try (OrtSession s = env.createSession(model.toString())) {
            return s.getInputInfo();
        }
    }

    @Test
    public void textModelsGetTokenIdsMasksAndTypeIdsOfTheBatchAndSequenceAsked() throws Exception {
        Path model = Fixtures.miniLm();
        InputPlan plan = InputPlan.of(inputsOf(model), 3, 40, Map.of());
        assertEquals(List.of("input_ids", "attention_mask", "token_type_ids"),
                plan.inputs().stream().map(InputPlan.Input::name).toList());
        for (InputPlan.Input in : plan.inputs()) {
            assertArrayEquals(new long[] {3, 40}, in.shape());
        }
        Map<String, OnnxTensor> t = plan.create(env, 9);
        long[][] ids = (long[][]) t.get("input_ids").getValue();
        long[][] mask = (long[][]) t.get("attention_mask").getValue();
        long[][] types = (long[][]) t.get("token_type_ids").getValue();
        for (int b = 0; b < 3; b++) {
            for (int s = 0; s < 40; s++) {
                assertTrue(ids[b][s] >= InputPlan.TOKEN_ID_FROM && ids[b][s] < InputPlan.TOKEN_ID_TO);
                assertEquals(1, mask[b][s]);
                assertEquals(0, types[b][s]);
            }
        }
        // the same seed gives the same tokens
        assertArrayEquals(ids[2], ((long[][]) plan.create(env, 9).get("input_ids").getValue())[2]);
        try (OrtSession s = env.createSession(model.toString()); OrtSession.Result r = s.run(t)) {
            assertArrayEquals(new long[] {3, 40, 384},
                    ((ai.onnxruntime.TensorInfo) r.get(0).getInfo()).getShape());
        }
    }

    @Test
    public void givenShapesWinAndTinyModelsRun() throws Exception {
        Path text = TinyOnnx.write(tmp.getRoot().toPath(), "text.onnx", TinyOnnx.text());
        Map<String, long[]> given = new LinkedHashMap<>();
        given.put("input_ids", new long[] {2, 7});
        given.put("attention_mask", new long[] {2, 7});
        InputPlan plan = InputPlan.of(inputsOf(text), 1, 128, given);
        assertArrayEquals(new long[] {2, 7}, plan.inputs().get(0).shape());
        try (OrtSession s = env.createSession(text.toString()); OrtSession.Result r = s.run(plan.create(env, 1))) {
            assertArrayEquals(new long[] {2, 8}, ((ai.onnxruntime.TensorInfo) r.get(0).getInfo()).getShape());
        }
        Path mlp = TinyOnnx.write(tmp.getRoot().toPath(), "mlp.onnx", TinyOnnx.mlp());
        InputPlan floats = InputPlan.of(inputsOf(mlp), 5, 128, Map.of());
        assertEquals(InputPlan.Fill.RANDOM, floats.inputs().get(0).fill());
        assertArrayEquals(new long[] {5, 16}, floats.inputs().get(0).shape());
    }

    @Test
    public void refusesShapesTheModelDoesNotTakeNamingTheInput() throws Exception {
        Path fixed = TinyOnnx.write(tmp.getRoot().toPath(), "fixed.onnx", TinyOnnx.fixedMlp());
        Map<String, NodeInfo> inputs = inputsOf(fixed);
        assertEquals("--input x=3x16: the model's input x is [2, 16]; dimension 0 must be 2",
                assertThrows(IllegalArgumentException.class,
                        () -> InputPlan.of(inputs, 1, 1, Map.of("x", new long[] {3, 16}))).getMessage());
        assertEquals("--input x=2x16x1: the model's input x has 2 dimensions ([2, 16] float), not 3",
                assertThrows(IllegalArgumentException.class,
                        () -> InputPlan.of(inputs, 1, 1, Map.of("x", new long[] {2, 16, 1}))).getMessage());
        assertEquals("--input y: the model has no input 'y'; its inputs are x",
                assertThrows(IllegalArgumentException.class,
                        () -> InputPlan.of(inputs, 1, 1, Map.of("y", new long[] {2}))).getMessage());
        Path text = TinyOnnx.write(tmp.getRoot().toPath(), "text.onnx", TinyOnnx.text());
        String tooBig = assertThrows(IllegalArgumentException.class,
                () -> InputPlan.of(inputsOf(text), 100_000, 100_000, Map.of())).getMessage();
        assertTrue(tooBig, tooBig.startsWith("input input_ids [100000, 100000]: 10000000000 elements of long"));
    }
}
