package dev.vantage.device.onnxruntime.view;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.ViewSection;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/** The view of ONNX Runtime 1.29's own profile of a small MLP, against the file read with Jackson. */
public class OrtNodesViewTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** A run of a file, as the board hands it to a view. */
    private static BoardRun run(Path file, Map<String, String> tags) throws IOException {
        TraceSummary summary = TraceReader.summary(file);
        return new BoardRun() {
            public String id() {
                return "x";
            }

            public String name() {
                return file.getFileName().toString();
            }

            public Path file() {
                return file;
            }

            public Map<String, String> tags() {
                return tags;
            }

            public TraceSummary summary() {
                return summary;
            }

            public List<Table> analyses() {
                return List.of();
            }

            public List<TraceSummary> job() {
                return List.of(summary);
            }

            public <T> T read(Function<AnalysedTrace, T> function) throws IOException {
                try (AnalysedTrace t = TraceReader.read(file)) {
                    return function.apply(t);
                }
            }
        };
    }

    @Test
    public void everyNodeOfOnnxRuntimesProfileWithItsRunsTimeAndSizes() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("onnxruntime_profile_mlp.json");
        try (InputStream in = OrtNodesViewTest.class.getResourceAsStream("onnxruntime_profile_mlp.json")) {
            Files.copy(in, file);
        }
        // ONNX Runtime's own figures: its Node events, by node name
        Map<String, long[]> expected = new LinkedHashMap<>();
        for (JsonNode e : new ObjectMapper().readTree(file.toFile())) {
            if (e.path("cat").asText().equals("Node") && e.path("name").asText().endsWith("_kernel_time")) {
                String node = e.path("name").asText().replace("_kernel_time", "");
                long[] sums = expected.computeIfAbsent(node, k -> new long[4]);
                sums[0]++;
                sums[1] += e.path("dur").asLong() * 1000;
                sums[2] = Math.max(sums[2], Long.parseLong(e.path("args").path("output_size").asText("0")));
                sums[3] = Math.max(sums[3], Long.parseLong(e.path("args").path("parameter_size").asText("0")));
            }
        }
        assertEquals(3, expected.size());
        OrtNodesView view = new OrtNodesView();
        BoardRun run = run(file, Map.of());
        assertTrue(view.appliesTo(run));
        Map<String, ViewSection> sections = new LinkedHashMap<>();
        view.render(run).forEach(s -> sections.put(s.id(), s));
        ViewSection nodes = sections.get("nodes");
        assertEquals(List.copyOf(expected.keySet()), nodes.rows().stream().map(r -> r.get(0)).toList());
        for (List<Object> row : nodes.rows()) {
            long[] sums = expected.get((String) row.get(0));
            assertEquals(row.toString(), sums[0], row.get(3));
            assertEquals(row.toString(), sums[1], row.get(4));
            assertEquals(row.toString(), sums[2], row.get(6));
            assertEquals(row.toString(), sums[3], row.get(8));
            assertEquals("CPUExecutionProvider", row.get(2));
        }
        assertTrue(sections.containsKey("largest-outputs"));
    }

    @Test
    public void appliesToOnnxRuntimeRunsOnly() throws Exception {
        Path torch = tmp.getRoot().toPath().resolve("t.pt.trace.json");
        Files.writeString(torch, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"aten::mm\", \"cat\": \"cpu_op\","
                + " \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}");
        OrtNodesView view = new OrtNodesView();
        assertTrue(!view.appliesTo(run(torch, Map.of())));
        assertTrue(view.appliesTo(run(torch, Map.of("device", "ort:0"))));
    }
}
