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

/** The profile reader against ONNX Runtime's own files, read back with Jackson as the reference. */
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
        OrtEvents e = OrtProfileReader.read(file);
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
                assertEquals(OrtEvents.NODE, e.kind[i]);
                assertEquals(name.substring(0, name.length() - "_kernel_time".length()), e.strings.get(e.name[i]));
                assertEquals(args.get("op_name").asText(), e.strings.get(e.op[i]));
                assertEquals(args.get("provider").asText(), e.strings.get(e.provider[i]));
                assertEquals(args.get("node_index").asLong(), e.nodeIndex[i]);
                assertEquals(args.get("output_size").asLong(), e.outputSize[i]);
                assertEquals(args.get("mem_bytes_in_use").asLong(), e.memInUse[i]);
                assertEquals(args.get("mem_in_use_delta").asLong(), e.memInUseDelta[i]);
                assertEquals(args.get("mem_arena_held").asLong(), e.memArenaHeld[i]);
                assertEquals(Fixtures.JSON.readTree(e.strings.raw(e.inputShape[i])), args.get("input_type_shape"));
                assertEquals(Fixtures.JSON.readTree(e.strings.raw(e.outputShape[i])), args.get("output_type_shape"));
            } else if (name.equals("model_run")) {
                runs++;
                assertEquals(OrtEvents.MODEL_RUN, e.kind[i]);
            } else {
                assertEquals(OrtEvents.OTHER, e.kind[i]);
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
        OrtEvents e = OrtProfileReader.read(file);
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
    public void readsALargeFileInPartsAsInOneAndFallsBackWhenLinesDoNotStartEvents() throws Exception {
        int n = 60_000;
        StringBuilder lines = new StringBuilder("[\n");
        StringBuilder nested = new StringBuilder("[\n");
        for (int i = 0; i < n; i++) {
            String head = "{\"cat\" : \"Node\",\"pid\" :1,\"tid\" :" + (1 + i % 4) + ",\"dur\" :" + (i % 97)
                    + ",\"ts\" :" + i + ",\"ph\" : \"X\",\"name\" :\"node_" + (i % 300) + "_kernel_time\",\"args\" :";
            String args = "{\"op_name\" : \"Op" + (i % 7) + "\",\"input_type_shape\" : [{\"float\":[" + (i % 5)
                    + ",8]}],\"thread_scheduling_stats\" : {\"main_thread\": {\"thread_pool_name\": \"pool\", \"x\": [1,"
                    + " 2]}}}}";
            lines.append(i == 0 ? "" : ",\n").append(head).append(' ').append(args);
            // an object value on a line of its own: a line that starts with '{' and is no event
            nested.append(i == 0 ? "" : ",\n").append(head).append('\n').append(args);
        }
        lines.append("\n]\n");
        nested.append("\n]\n");
        Path one = tmp.newFile("lines.json").toPath();
        Path other = tmp.newFile("nested.json").toPath();
        Files.writeString(one, lines, StandardCharsets.UTF_8);
        Files.writeString(other, nested, StandardCharsets.UTF_8);
        assertTrue(Files.size(one) > OrtProfileReader.PARALLEL_BYTES);
        int threads = OrtProfileReader.readThreads;
        OrtProfileReader.readThreads = 3;
        for (Path file : List.of(one, other, one)) {
            OrtEvents e = OrtProfileReader.read(file);
            // the last read in one part
            OrtProfileReader.readThreads = file == other ? 1 : 3;
            assertEquals(n, e.size);
            assertEquals(n, e.total);
            for (int i = 0; i < n; i++) {
                assertEquals(i, e.tsMicros[i]);
                assertEquals(1 + i % 4, e.tid[i]);
                assertEquals("node_" + i % 300, e.strings.get(e.name[i]));
                assertEquals("Op" + i % 7, e.strings.get(e.op[i]));
                assertEquals("[{\"float\":[" + i % 5 + ",8]}]", e.strings.raw(e.inputShape[i]));
                assertEquals(OrtEvents.NODE, e.kind[i]);
            }
            assertEquals(300 + 7 + 5, e.strings.size());
        }
        OrtProfileReader.readThreads = threads;
    }

    @Test
    public void keepsWhatAFileCutShortHeldAndRefusesWhatIsNoProfile() throws Exception {
        Path cut = tmp.newFile("cut.json").toPath();
        Files.writeString(cut, "[\n{\"cat\" : \"Session\",\"tid\" :1,\"dur\" :5,\"ts\" :1,\"name\" :\"model_run\","
                + "\"args\" : {}},\n{\"cat\" : \"Node\",\"tid\" :1,\"dur\" :2,\"ts\" :2,\"na");
        OrtEvents e = OrtProfileReader.read(cut);
        assertEquals(1, e.size);
        assertEquals(OrtEvents.MODEL_RUN, e.kind[0]);
        Path object = tmp.newFile("object.json").toPath();
        Files.writeString(object, "{\"traceEvents\": []}");
        IOException refused = assertThrows(IOException.class, () -> OrtProfileReader.read(object));
        assertTrue(refused.getMessage(), refused.getMessage().contains("not an ONNX Runtime profile"));
        Path empty = tmp.newFile("empty.json").toPath();
        assertThrows(IOException.class, () -> OrtProfileReader.read(empty));
    }

    @Test
    public void findsTheEndOfEveryContainerAsJacksonDoes() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        List<String> containers = List.of("{}", "[]", "[{\"float\":[1,12,8,32]}]",
                "{\"main_thread\": {\"thread_pool_name\": \"session-1-intra-op\", \"block_size\": [],"
                        + " \"core\": 0}, \"sub_threads\": {\"1399\": {\"num_run\": 8, \"core\": 1}}}",
                "{\"a\": \"}]{[ inside a string\", \"b\": [\"]\", \"{\"]}",
                "{\"esc\": \"a \\\" quote, a \\\\ backslash and } after\", \"n\": [1, {\"x\": \"\\\\\"}]}",
                "[\"\\\\\", \"}\", [[[]]], {\"k\": {\"k\": {}}}]");
        for (String c : containers) {
            json.readTree(c);   // each is JSON, as Jackson reads it
            for (String pad : List.of("", " ", "        ,\"rest\" : 1}")) {
                // every alignment against the eight-byte words, and bytes after the container
                for (int lead = 0; lead < 9; lead++) {
                    byte[] b = (" ".repeat(lead) + c + pad).getBytes(StandardCharsets.UTF_8);
                    assertEquals(c + " at " + lead, lead + c.getBytes(StandardCharsets.UTF_8).length,
                            Json.containerEnd(b, lead, b.length));
                    assertEquals(c + " cut at " + lead, Json.INCOMPLETE,
                            Json.containerEnd(b, lead, lead + c.getBytes(StandardCharsets.UTF_8).length - 1));
                }
            }
        }
    }

    @Test
    public void turnsOrtsTypeShapesIntoTorchsInputDims() {
        assertEquals("[[8, 128, 384], [384, 384]]",
                Shapes.torchDims("[{\"float\":[8,128,384]},{\"float\":[384,384]}]"));
        assertEquals("[[2], []]", Shapes.torchDims("[{\"int64\":[2]},{\"float16\":[]}]"));
        assertEquals("[]", Shapes.torchDims("[]"));
    }
}
