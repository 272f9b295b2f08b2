package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import ai.onnxruntime.OnnxTensor;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.core.internal.CoreForTests;

/**
 * A MiniLM trace against the compatibility checklist for Kineto's consumers (reference torch-profiler.md §8):
 * the top-level keys and their order, every complete event's keys and integer rows, device work's Kineto
 * arguments and positive streams, both ends of every flow on the events they bind to, memory instants with
 * Kineto's keys, steps, and {@code Record Window End} last.
 */
public class KinetoStructureTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void anOrtTraceKeepsKinetosStructure() throws Exception {
        OrtRuntime runtime = OrtRuntime.standalone(tmp.newFolder("ort").toPath(), false);
        List<ProfileResult> cycles = new ArrayList<>();
        try (CoreForTests core = new CoreForTests(runtime, runtime);
                ProfiledSession session = runtime.open(Fixtures.miniLm(), ProfiledRunTest.AS_WRITTEN)) {
            Map<String, OnnxTensor> in = InputPlan.of(session.session().getInputInfo(), 1, 16, Map.of())
                    .create(runtime.environment(), 2);
            Profile p = core.profiler().profile().activities(Set.of(Activity.CPU, Activity.MEM, OrtRuntime.ORT))
                    .schedule(Schedule.of(0, 1, 3, 1, 0)).recordShapes(true).onTraceReady(cycles::add).start();
            for (int step = 0; step < 5; step++) {
                session.run(in).close();
                p.step();
            }
            p.stop();
        } finally {
            runtime.deactivate();
        }
        Path file = tmp.getRoot().toPath().resolve("t.json");
        JsonNode root = Fixtures.chrome(cycles.get(0).trace(), file);
        String text = Files.readString(file);

        // top level: the keys, distributedInfo before traceEvents with HTA's "rank": N spacing
        for (String key : List.of("schemaVersion", "deviceProperties", "distributedInfo", "traceEvents",
                "traceName", "displayTimeUnit", "baseTimeNanoseconds")) {
            assertTrue("top-level " + key, root.has(key));
        }
        assertEquals(1, root.get("schemaVersion").asInt());
        assertTrue(text.indexOf("\"distributedInfo\"") < text.indexOf("\"traceEvents\""));
        assertTrue(text.matches("(?s).*\"rank\":\\s+\\d+.*"));
        JsonNode device = root.get("deviceProperties").get(0);
        assertEquals("ort", device.get("type").asText());
        assertFalse(device.get("emulated").asBoolean());

        Map<String, JsonNode> byPlace = new HashMap<>();
        List<JsonNode> flows = new ArrayList<>();
        Set<String> devicePids = new HashSet<>();
        int steps = 0;
        int memory = 0;
        JsonNode last = null;
        for (Iterator<JsonNode> it = root.get("traceEvents").elements(); it.hasNext();) {
            JsonNode e = it.next();
            last = e;
            String ph = e.get("ph").asText();
            if (ph.equals("X")) {
                for (String key : List.of("cat", "name", "ts", "dur", "pid", "tid")) {
                    assertTrue(key + " in " + e, e.has(key));
                }
                assertTrue(e.get("dur").asDouble() >= 0);
                if (e.get("cat").asText().equals("Trace")) {
                    continue;
                }
                assertTrue("integer pid and tid: " + e, e.get("pid").isIntegralNumber()
                        && e.get("tid").isIntegralNumber());
                String cat = e.get("cat").asText();
                JsonNode args = e.get("args");
                if (cat.equals("kernel")) {
                    for (String key : List.of("External id", "correlation", "device", "stream")) {
                        assertTrue(key + " in " + e, args.has(key));
                    }
                    assertTrue("device work's stream is positive (HTA's test for GPU rows)",
                            args.get("stream").asLong() > 0);
                    devicePids.add(e.get("pid").asText());
                } else {
                    assertFalse("host events carry no stream: " + e, args.has("stream"));
                }
                steps += e.get("name").asText().startsWith("ProfilerStep#") ? 1 : 0;
                byPlace.put(e.get("pid").asText() + "/" + e.get("tid").asText() + "/" + e.get("ts").asText(), e);
            } else if (ph.equals("s") || ph.equals("f")) {
                flows.add(e);
            } else if (ph.equals("i") && e.get("name").asText().equals("[memory]")) {
                memory++;
                assertEquals("t", e.get("s").asText());
                for (String key : List.of("Device Type", "Device Id", "Bytes", "Total Allocated", "Total Reserved")) {
                    assertTrue(key + " in " + e, e.get("args").has(key));
                }
            }
        }
        assertEquals("steps 1 to 3", 3, steps);
        assertTrue(memory > 0);
        assertEquals(1, devicePids.size());
        assertEquals("Record Window End", last.get("name").asText());
        // every flow end sits on an event of its row at its time: s on a model_run, f (binding "e") on a node
        assertFalse(flows.isEmpty());
        Map<String, JsonNode> pairs = new HashMap<>();
        for (JsonNode f : flows) {
            assertEquals("ac2g", f.get("cat").asText());
            JsonNode at = byPlace.get(f.get("pid").asText() + "/" + f.get("tid").asText() + "/"
                    + f.get("ts").asText());
            assertNotNull("the flow's event: " + f, at);
            // one pair per node, ids unique in the file: the start on the node's own model_run
            JsonNode other = pairs.put(f.get("id").asLong() + f.get("ph").asText(), at);
            assertNull("one " + f.get("ph").asText() + " per flow id: " + f, other);
            if (f.get("ph").asText().equals("s")) {
                assertEquals("model_run", at.get("name").asText());
            } else {
                assertEquals("e", f.get("bp").asText());
                assertEquals("kernel", at.get("cat").asText());
            }
        }
        for (Map.Entry<String, JsonNode> end : pairs.entrySet()) {
            if (end.getKey().endsWith("f")) {
                JsonNode start = pairs.get(end.getKey().replace("f", "s"));
                assertNotNull("the flow to " + end.getValue() + " starts", start);
                assertEquals(start.get("args").get("correlation").asLong(),
                        end.getValue().get("args").get("correlation").asLong());
            }
        }
    }
}
