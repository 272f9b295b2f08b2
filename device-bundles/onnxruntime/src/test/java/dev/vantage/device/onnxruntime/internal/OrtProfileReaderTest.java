package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;

import dev.vantage.trace.engine.read.OrtProfile;
import dev.vantage.trace.engine.read.OrtProfileReader;

/**
 * The trace engine's reader of ONNX Runtime's profile against ONNX Runtime's own files (which need its natives, here),
 * read back with Jackson's tree as the reference.
 */
public class OrtProfileReaderTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** A profile ONNX Runtime wrote itself: MiniLM, two runs. */
    private Path ortProfile() throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.enableProfiling(tmp.getRoot().toPath().resolve("p").toString());
            try (OrtSession s = env.createSession(Fixtures.miniLm().toString(), o)) {
                Map<String, OnnxTensor> in = InputPlan.of(s.getInputInfo(), 2, 24, Map.of()).create(env, 5);
                s.run(in).close();
                s.run(in).close();
                in.values().forEach(OnnxTensor::close);
                return Path.of(s.endProfiling());
            }
        }
    }

    @Test
    public void readsEveryEventOfOrtsOwnFileAsJacksonDoes() throws Exception {
        Path file = ortProfile();
        OrtProfile e = OrtProfileReader.read(file);
        List<JsonNode> ref = Fixtures.ortEvents(file);
        assertEquals(ref.size(), e.size);
        assertEquals(ref.size(), e.total);
        int nodes = 0;
        int runs = 0;
        for (int i = 0; i < ref.size(); i++) {
            JsonNode r = ref.get(i);
            assertEquals(r.get("ts").asLong(), e.tsMicros[i]);
            assertEquals(r.get("dur").asLong(), e.durMicros[i]);
            assertEquals(r.get("tid").asLong(), e.tid[i]);
            String name = r.get("name").asText();
            JsonNode args = r.get("args");
            if (r.get("cat").asText().equals("Node") && name.endsWith("_kernel_time")) {
                nodes++;
                assertEquals(OrtProfile.NODE, e.kind[i]);
                assertEquals(name.substring(0, name.length() - "_kernel_time".length()), e.strings.get(e.name[i]));
                assertEquals(args.get("op_name").asText(), e.strings.get(e.op[i]));
                assertEquals(args.get("provider").asText(), e.strings.get(e.provider[i]));
                assertEquals(args.get("node_index").asLong(), e.nodeIndex[i]);
                assertEquals(args.get("output_size").asLong(), e.outputSize[i]);
                assertEquals(args.get("mem_bytes_in_use").asLong(), e.memInUse[i]);
                assertEquals(args.get("mem_in_use_delta").asLong(), e.memInUseDelta[i]);
                assertEquals(args.get("mem_arena_held").asLong(), e.memArenaHeld[i]);
                assertEquals(torchDims(args.get("input_type_shape")), e.string(e.inputDims[i]));
                assertEquals(Fixtures.JSON.readTree(e.string(e.outputShape[i])), args.get("output_type_shape"));
            } else if (name.equals("model_run")) {
                runs++;
                assertEquals(OrtProfile.MODEL_RUN, e.kind[i]);
            } else {
                assertEquals(OrtProfile.OTHER, e.kind[i]);
            }
        }
        assertEquals(2, runs);
        assertTrue(nodes > 100);
        assertEquals(nodes, e.nodes());
    }

    @Test
    public void readsAcrossChunkBoundariesAndEscapes() throws Exception {
        // many events with escaped names, larger than one read chunk
        StringBuilder sb = new StringBuilder("[\n");
        int n = 30_000;
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",\n").append("{\"cat\" : \"Node\",\"pid\" :1,\"tid\" :").append(7 + i % 3)
                    .append(",\"dur\" :").append(i).append(",\"ts\" :").append(1000 + i)
                    .append(",\"ph\" : \"X\",\"name\" :\"a \\\"quoted\\\" \\u00e9 node/").append(i % 50)
                    .append("_kernel_time\",\"args\" : {\"op_name\" : \"MatMul\",\"thread_scheduling_stats\" : ")
                    .append("{\"main_thread\": {\"x\": [1, 2, {\"y\": \"}]\"}]}},\"node_index\" : \"")
                    .append(i % 50).append("\",\"provider\" : \"CPUExecutionProvider\"}}");
        }
        sb.append("\n]\n");
        Path file = tmp.newFile("synthetic.json").toPath();
        Files.writeString(file, sb, StandardCharsets.UTF_8);
        assertTrue(Files.size(file) > (4 << 20));
        OrtProfile e = OrtProfileReader.read(file);
        assertEquals(n, e.size);
        for (int i = 0; i < n; i++) {
            assertEquals(1000 + i, e.tsMicros[i]);
            assertEquals(i, e.durMicros[i]);
            assertEquals(7 + i % 3, e.tid[i]);
            assertEquals("a \"quoted\" \u00e9 node/" + i % 50, e.strings.get(e.name[i]));
            assertEquals(i % 50, e.nodeIndex[i]);
        }
        assertEquals("names interned once each", 50 + 2, e.strings.size());
    }

    @Test
    public void keepsWhatAFileCutShortHeldAndRefusesWhatIsNoProfile() throws Exception {
        Path cut = tmp.newFile("cut.json").toPath();
        Files.writeString(cut, "[\n{\"cat\" : \"Session\",\"tid\" :1,\"dur\" :5,\"ts\" :1,\"name\" :\"model_run\","
                + "\"args\" : {}},\n{\"cat\" : \"Node\",\"tid\" :1,\"dur\" :2,\"ts\" :2,\"na");
        OrtProfile e = OrtProfileReader.read(cut);
        assertEquals(1, e.size);
        assertEquals(OrtProfile.MODEL_RUN, e.kind[0]);
        Path object = tmp.newFile("object.json").toPath();
        Files.writeString(object, "{\"traceEvents\": []}");
        IOException refused = assertThrows(IOException.class, () -> OrtProfileReader.read(object));
        assertTrue(refused.getMessage(), refused.getMessage().contains("not an ONNX Runtime profile"));
        Path empty = tmp.newFile("empty.json").toPath();
        assertThrows(IOException.class, () -> OrtProfileReader.read(empty));
    }

    /** {@code [{"float":[8,128]},{"int64":[2]}]} as torch's Input Dims text, worked out from Jackson's tree. */
    private static String torchDims(JsonNode typeShapes) {
        StringBuilder b = new StringBuilder("[");
        for (int k = 0; k < typeShapes.size(); k++) {
            JsonNode dims = typeShapes.get(k).elements().next();
            b.append(k == 0 ? "[" : ", [");
            for (int d = 0; d < dims.size(); d++) {
                b.append(d == 0 ? "" : ", ").append(dims.get(d).asLong());
            }
            b.append(']');
        }
        return b.append(']').toString();
    }

    @Test
    public void turnsOrtsTypeShapesIntoTorchsInputDimsAndKeepsTheOutputsAsWritten() throws Exception {
        Path file = tmp.newFile("shapes.json").toPath();
        Files.writeString(file, "[\n{\"cat\" : \"Node\",\"pid\" :1,\"tid\" :2,\"dur\" :3,\"ts\" :4,\"ph\" : \"X\","
                + "\"name\" :\"mm_kernel_time\",\"args\" : {\"input_type_shape\" : [{\"float\":[8,128,384]},"
                + "{\"float16\":[]},{\"int64\":[2]}],\"output_type_shape\" : [{\"float\":[8,128,384]}]}}\n]\n");
        OrtProfile e = OrtProfileReader.read(file);
        assertEquals("[[8, 128, 384], [], [2]]", e.string(e.inputDims[0]));
        assertEquals("[{\"float\":[8,128,384]}]", e.string(e.outputShape[0]));
    }
}
