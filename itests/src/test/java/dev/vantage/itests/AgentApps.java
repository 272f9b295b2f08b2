package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reading what the agent wrote with a parser that is not Vantage's (Jackson's tree): a trace's events by category and
 * name, what contains what, and ONNX Runtime's own profile files of the same runs, whose nodes the trace's kernels
 * must match one for one.
 */
final class AgentApps {

    static final ObjectMapper JSON = new ObjectMapper();

    private AgentApps() {
    }

    /** The one trace of a directory ({@code *.trace.json.gz}), read. */
    static JsonNode onlyTrace(Path dir) throws IOException {
        List<Path> traces;
        try (Stream<Path> s = Files.list(dir)) {
            traces = s.filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")).toList();
        }
        assertEquals("one trace in " + dir + ": " + traces, 1, traces.size());
        try (InputStream in = new GZIPInputStream(Files.newInputStream(traces.get(0)))) {
            return JSON.readTree(in);
        }
    }

    /** The complete events ({@code ph X}) of a trace with a name. */
    static List<JsonNode> named(JsonNode trace, String name) {
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (name.equals(e.path("name").asText()) && "X".equals(e.path("ph").asText())) {
                list.add(e);
            }
        }
        return list;
    }

    /** The complete events of a trace in a category ({@code kernel}, {@code cpu_op}, ...). */
    static List<JsonNode> category(JsonNode trace, String cat) {
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (cat.equals(e.path("cat").asText()) && "X".equals(e.path("ph").asText())) {
                list.add(e);
            }
        }
        return list;
    }

    /** The names the trace gives its processes. */
    static Set<String> processNames(JsonNode trace) {
        Set<String> names = new TreeSet<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("process_name".equals(e.path("name").asText())) {
                names.add(e.get("args").get("name").asText());
            }
        }
        return names;
    }

    /** Whether event {@code inner} lies within {@code outer} on the same thread (times in µs, 1 µs of slack). */
    static boolean within(JsonNode inner, JsonNode outer) {
        double s = inner.get("ts").asDouble();
        double e = s + inner.get("dur").asDouble();
        double os = outer.get("ts").asDouble();
        double oe = os + outer.get("dur").asDouble();
        return inner.get("tid").asLong() == outer.get("tid").asLong() && s >= os - 1 && e <= oe + 1;
    }

    /** How many events of one list lie within some event of another. */
    static long countWithin(List<JsonNode> inner, List<JsonNode> outer) {
        return inner.stream().filter(i -> outer.stream().anyMatch(o -> within(i, o))).count();
    }

    /**
     * Checks that the trace's kernels are ONNX Runtime's own node events of the same runs, one for one: ONNX
     * Runtime's profile files (kept with {@code -Dvantage.ort.keepProfiles=true}, named in the trace's metadata
     * with their profiling starts) read here, each node matched to one kernel of the same op type, node, thread,
     * start and duration within 1 µs.
     *
     * @return how many nodes there were
     */
    static int assertNodesOneForOne(JsonNode trace) throws IOException {
        JsonNode meta = trace.path("traceEvents");
        Map<String, String> metadata = new HashMap<>();
        trace.fields().forEachRemaining(f -> {
            if (f.getValue().isTextual()) {
                metadata.put(f.getKey(), f.getValue().asText());
            }
        });
        assertNotNull(meta);
        String files = metadata.get("vantage.device.ort.ort_profiles");
        String starts = metadata.get("vantage.device.ort.ort_profile_starts_ns");
        assertNotNull("ONNX Runtime's profiles are named in the metadata: " + metadata.keySet(), files);
        String[] file = files.split(", ");
        String[] start = starts.split(", ");
        long base = trace.get("baseTimeNanoseconds").asLong();
        List<long[]> ort = new ArrayList<>();
        List<String> ortWhat = new ArrayList<>();
        for (int f = 0; f < file.length; f++) {
            long origin = Long.parseLong(start[f]);
            for (JsonNode e : JSON.readTree(Path.of(file[f]).toFile())) {
                if ("Node".equals(e.path("cat").asText()) && e.get("name").asText().endsWith("_kernel_time")) {
                    ort.add(new long[] {origin + e.get("ts").asLong() * 1000, e.get("dur").asLong() * 1000,
                            e.get("tid").asLong(), ortWhat.size()});
                    ortWhat.add(e.get("args").get("op_name").asText() + "|" + e.get("name").asText());
                }
            }
        }
        List<JsonNode> kernels = category(trace, "kernel");
        List<long[]> ours = new ArrayList<>();
        List<String> ourWhat = new ArrayList<>();
        for (JsonNode k : kernels) {
            ours.add(new long[] {base + Math.round(k.get("ts").asDouble() * 1000),
                    Math.round(k.get("dur").asDouble() * 1000), k.get("tid").asLong(), ourWhat.size()});
            ourWhat.add(k.get("name").asText() + "|" + k.get("args").get("Node name").asText() + "_kernel_time");
        }
        assertEquals("one trace event per ONNX Runtime node", ort.size(), ours.size());
        Comparator<long[]> order = Comparator.<long[]>comparingLong(a -> a[2]).thenComparingLong(a -> a[0]);
        ort.sort(order);
        ours.sort(order);
        for (int i = 0; i < ort.size(); i++) {
            long[] a = ort.get(i);
            long[] b = ours.get(i);
            String what = ortWhat.get((int) a[3]);
            assertEquals("node " + i, what, ourWhat.get((int) b[3]));
            assertEquals(what + " on ONNX Runtime's thread", a[2], b[2]);
            assertTrue(what + " starts " + (b[0] - a[0]) + " ns off", Math.abs(b[0] - a[0]) <= 1000);
            assertTrue(what + " lasts " + (b[1] - a[1]) + " ns off", Math.abs(b[1] - a[1]) <= 1000);
        }
        return ort.size();
    }

    /** The model_run events ONNX Runtime's own profiles hold. */
    /**
     * Asserts the ONNX Runtime profiles the trace names hold the model's runs, and that the trace holds their nodes
     * one for one, more than 100 per run.
     */
    static void assertOrtRuns(JsonNode trace, int runs) throws IOException {
        assertEquals(runs, modelRunsInOrtProfiles(trace));
        assertTrue(assertNodesOneForOne(trace) > runs * 100);
    }

    /** Asserts the trace has the process row of ONNX Runtime's CPU provider, naming the runtime's version. */
    static void assertOrtProcess(JsonNode trace, String version) {
        String row = "ORT 0 (CPUExecutionProvider, ONNX Runtime " + version + ")";
        assertTrue(processNames(trace).toString(), processNames(trace).contains(row));
    }

    private static int modelRunsInOrtProfiles(JsonNode trace) throws IOException {
        int n = 0;
        for (String f : trace.get("vantage.device.ort.ort_profiles").asText().split(", ")) {
            for (JsonNode e : JSON.readTree(Path.of(f).toFile())) {
                n += "model_run".equals(e.path("name").asText()) ? 1 : 0;
            }
        }
        return n;
    }

    /** Asserts standard error holds no line of the agent's but those expected. */
    static void assertNoAgentLineBut(String err, String... expected) {
        for (String line : err.lines().toList()) {
            if (line.startsWith("vantage-agent:")) {
                assertTrue("unexpected: " + line, Stream.of(expected).anyMatch(line::contains));
            }
        }
        assertFalse(err, err.contains("Exception"));
    }
}
