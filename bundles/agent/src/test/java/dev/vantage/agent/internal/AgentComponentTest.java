package dev.vantage.agent.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.agent.bootstrap.Scope;
import dev.vantage.device.onnxruntime.internal.OrtRuntime;
import dev.vantage.exporter.chrome.internal.ChromeTraceExporter;
import dev.vantage.profiler.api.CaptureRequest;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.core.internal.StandaloneProfiler;

/**
 * The agent's bundle with the profiler core and the ONNX Runtime device, and an application's ONNX Runtime: the one
 * on the test's class path, reached only as the woven code reaches an application's (its objects handed to the
 * hooks, its methods called by reflection). The traces are read back with Jackson.
 */
public class AgentComponentTest {

    private static final String RUN = "run(Ljava/util/Map;)Lai/onnxruntime/OrtSession$Result;";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private OrtRuntime runtime;
    private StandaloneProfiler core;
    private final List<String> onDemandSteps = new ArrayList<>();
    private AgentComponent agent;
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private PrintStream savedErr;
    private OrtEnvironment env;

    /** The on-demand profiler, as far as the agent uses it: steps are marked on it. */
    private final OnDemandProfiler onDemand = new OnDemandProfiler() {
        @Override
        public String start(CaptureRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String stop() {
            throw new IllegalStateException("no capture is running");
        }

        @Override
        public String status() {
            return "idle";
        }

        @Override
        public synchronized void step() {
            onDemandSteps.add(Thread.currentThread().getName());
        }

        @Override
        public String table(TableOptions options) {
            throw new IllegalStateException();
        }
    };

    @Before
    public void setUp() throws Exception {
        runtime = OrtRuntime.standalone(tmp.newFolder("ort").toPath(), true);
        runtime.recordWithoutSessions(true);
        core = new StandaloneProfiler(4_000_000);
        core.addSource(runtime);
        core.addAllocator(runtime);
        core.addExporter(new ChromeTraceExporter());
        agent = new AgentComponent(core.profiler(), onDemand, runtime);
        env = OrtEnvironment.getEnvironment();
        savedErr = System.err;
        System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    }

    @After
    public void tearDown() {
        System.setErr(savedErr);
        agent.deactivate();
        core.close();
        runtime.deactivate();
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    static Path model() {
        return Path.of(System.getProperty("vantage.test.models", "target/models"), "all-minilm-l6-v2-q.onnx");
    }

    /** The application's session, its options set as the woven setters report them, its creation reported. */
    private OrtSession appSession(boolean seenByTheAgent) throws Exception {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(1);
        Bridge.optionsCalled(options, "setIntraOpNumThreads(I)V", new Object[] {1});
        OrtSession session = env.createSession(model().toString(), options);
        if (seenByTheAgent) {
            agent.sessionCreated(session, new Object[] {env, model().toString(), null, options},
                    "com.example.app.Service");
        }
        return session;
    }

    private Map<String, OnnxTensor> inputs(int tokens) throws Exception {
        long[] ids = new long[tokens];
        Arrays.fill(ids, 1010);
        long[] mask = new long[tokens];
        Arrays.fill(mask, 1);
        Map<String, OnnxTensor> in = new HashMap<>();
        in.put("input_ids", OnnxTensor.createTensor(env, java.nio.LongBuffer.wrap(ids), new long[] {1, tokens}));
        in.put("attention_mask", OnnxTensor.createTensor(env, java.nio.LongBuffer.wrap(mask), new long[] {1, tokens}));
        in.put("token_type_ids", OnnxTensor.createTensor(env, java.nio.LongBuffer.wrap(new long[tokens]),
                new long[] {1, tokens}));
        return in;
    }

    /** One application run, as the woven {@code run} does it: the platform's result, or the session's own run. */
    private void run(OrtSession session, Map<String, OnnxTensor> inputs) throws Exception {
        Object scope = Bridge.runEntered(session, RUN, new Object[] {inputs});
        try {
            Object result = Bridge.result(scope);
            try (OrtSession.Result r = result instanceof OrtSession.Result own ? own : session.run(inputs)) {
                assertTrue(r.get(0).getValue() instanceof float[][][]);
            }
        } finally {
            Bridge.exited(scope);
        }
    }

    private JsonNode trace(Path file) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return JSON.readTree(in);
        }
    }

    private static List<JsonNode> named(JsonNode trace, String name) {
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (name.equals(e.path("name").asText()) && "X".equals(e.path("ph").asText())) {
                list.add(e);
            }
        }
        return list;
    }

    private static long kernels(JsonNode trace) {
        long n = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            n += "kernel".equals(e.path("cat").asText()) ? 1 : 0;
        }
        return n;
    }

    @Test
    public void aCaptureAtStartUpRecordsTheApplicationsRunsWithTheirNodesAndEndsAfterItsLastStep() throws Exception {
        Path dir = tmp.newFolder("traces").toPath();
        agent.activate("start=startup,dir=" + dir + ",name=app");
        assertSame(agent, Bridge.hooks());
        OrtSession session = appSession(true);
        Map<String, OnnxTensor> in = inputs(12);
        // each run is a step (no library above it): warm-up, then steps 1 to 3, then the capture ends
        for (int i = 0; i < 6; i++) {
            run(session, in);
        }
        agent.capture().endAndWait(null, 60_000);
        assertEquals(6, onDemandSteps.size());
        JsonNode trace = trace(dir.resolve("app.trace.json.gz"));
        List<JsonNode> runs = named(trace, "ort::run");
        assertEquals(3, runs.size());
        for (JsonNode r : runs) {
            assertEquals("all-minilm-l6-v2-q.onnx", r.get("args").get("ORT session").asText());
            assertEquals("[[1,12],[1,12],[1,12]]", r.get("args").get("Input Dims").toString());
            assertEquals("long", r.get("args").get("Input type").get(0).asText());
        }
        assertTrue("ONNX Runtime's nodes of the three runs: " + kernels(trace), kernels(trace) > 3 * 100);
        assertEquals("3", trace.get("vantage.device.ort.model_runs").asText());
        assertEquals("startup", trace.get("vantage.trigger").asText());
        String err = err();
        assertTrue(err, err.contains("ort::run") && err.contains("DynamicQuantizeMatMul")
                && err.contains("vantage-agent: trace written: " + dir.resolve("app.trace.json.gz")));
        session.close();
    }

    @Test
    public void runsOfASessionCreatedBeforeTheAgentAreOpsWithoutNodesAndNestedOverloadsCountOnce() throws Exception {
        Path dir = tmp.newFolder("traces").toPath();
        agent.activate("start=startup,warmup=0,active=2,dir=" + dir + ",name=early");
        OrtSession session = appSession(false);
        Map<String, OnnxTensor> in = inputs(8);
        for (int i = 0; i < 2; i++) {
            Object outer = Bridge.runEntered(session, RUN, new Object[] {in});
            // the overload the outer run calls is not a run of its own
            assertNull(Bridge.runEntered(session, "run(Ljava/util/Map;Ljava/util/Set;)Lai/onnxruntime/"
                    + "OrtSession$Result;", new Object[] {in, java.util.Set.of()}));
            session.run(in).close();
            Bridge.exited(outer);
        }
        agent.capture().endAndWait(null, 60_000);
        JsonNode trace = trace(dir.resolve("early.trace.json.gz"));
        List<JsonNode> runs = named(trace, "ort::run");
        assertEquals(2, runs.size());
        assertEquals(OrtHooks.UNKNOWN, runs.get(0).get("args").get("ORT session").asText());
        assertEquals(0, kernels(trace));
        session.close();
    }

    @Test
    public void aLibraryCallIsOneAnnotationPerLibraryAndEachOutermostCallIsAStep() throws Exception {
        Path dir = tmp.newFolder("traces").toPath();
        agent.activate("start=startup,warmup=0,active=2,dir=" + dir + ",name=calls");
        OrtSession session = appSession(true);
        Map<String, OnnxTensor> in = inputs(8);
        for (int i = 0; i < 2; i++) {
            Object embed = Bridge.callEntered("EmbeddingModel.embed", Bridge.EMBEDDING_MODEL, this);
            Object embedAll = Bridge.callEntered("EmbeddingModel.embedAll", Bridge.EMBEDDING_MODEL, this);
            Object encode = Bridge.callEntered("HuggingFaceTokenizer.encode", Bridge.TOKENIZER, this);
            Bridge.exited(encode);
            run(session, in);
            Bridge.exited(embedAll);
            assertEquals("no step ends inside the outermost call", i, onDemandSteps.size());
            Bridge.exited(embed);
        }
        agent.capture().endAndWait(null, 60_000);
        assertEquals(2, onDemandSteps.size());
        JsonNode trace = trace(dir.resolve("calls.trace.json.gz"));
        List<JsonNode> embeds = named(trace, "EmbeddingModel.embed");
        assertEquals(2, embeds.size());
        assertEquals(getClass().getName(), embeds.get(0).get("args").get("class").asText());
        assertEquals("the inner call of the same library is not another annotation", 0,
                named(trace, "EmbeddingModel.embedAll").size());
        assertEquals(2, named(trace, "HuggingFaceTokenizer.encode").size());
        assertEquals(2, named(trace, "ort::run").size());
        assertEquals(1, named(trace, "ProfilerStep#0").size());
        assertEquals(1, named(trace, "ProfilerStep#1").size());
        session.close();
    }

    @Test
    public void withNamedStepsOnlyTheirTopLevelCallsAreSteps() throws Exception {
        agent.activate("step=com.acme.Api#handle");
        for (int i = 0; i < 3; i++) {
            Object handle = Bridge.callEntered("com.acme.Api#handle", Bridge.STEP_METHOD, null);
            Object nested = Bridge.callEntered("com.acme.Api#handle", Bridge.STEP_METHOD, null);
            Bridge.exited(Bridge.callEntered("EmbeddingModel.embed", Bridge.EMBEDDING_MODEL, this));
            Bridge.exited(nested);
            Bridge.exited(handle);
        }
        Bridge.exited(Bridge.callEntered("EmbeddingModel.embed", Bridge.EMBEDDING_MODEL, this));
        assertEquals(3, onDemandSteps.size());
        assertNull("no capture at start-up: on demand", agent.capture());
    }

    @Test
    public void aTraceThatCannotBeWrittenEndsTheCaptureInOneLine() throws Exception {
        Path dir = tmp.newFolder("traces").toPath();
        agent.activate("start=startup,warmup=0,active=1,repeat=0,dir=" + dir + ",name=full");
        OrtSession session = appSession(true);
        Map<String, OnnxTensor> in = inputs(8);
        // the directory checked at start-up is gone when the first cycle is written: a full disk does the same
        Files.delete(dir);
        Files.writeString(dir, "a file where the directory was");
        for (int i = 0; i < 3; i++) {
            run(session, in);
        }
        agent.capture().endAndWait(null, 60_000);
        List<String> failures = err().lines().filter(l -> l.startsWith("vantage-agent: writing chrome")).toList();
        assertEquals(err(), 1, failures.size());
        assertTrue(failures.get(0), failures.get(0).endsWith("; the capture ends, the application goes on"));
        assertTrue(agent.capture().ended());
        // the application's runs go on, unrecorded
        run(session, in);
        session.close();
    }

    @Test
    public void whatOnlyThePlatformCanCheckIsOneLineAndNoCaptureStarts() {
        agent.activate("start=startup,activities=CPU+NPU,dir=" + tmp.getRoot());
        assertNull(agent.capture());
        String err = err();
        assertTrue(err, err.startsWith("vantage-agent: activities=CPU+NPU: NPU cannot be recorded here; available:"));
        assertTrue(err, err.strip().endsWith("; the application runs unprofiled"));
        assertEquals(1, err.lines().count());
        assertSame("on demand, the application can still be profiled", agent, Bridge.hooks());
    }

    @Test
    public void theApplicationsExitWritesTheCaptureUnderWay() throws Exception {
        Path dir = tmp.newFolder("traces").toPath();
        agent.activate("start=startup,warmup=0,active=100,dir=" + dir + ",name=exit");
        OrtSession session = appSession(true);
        Map<String, OnnxTensor> in = inputs(8);
        for (int i = 0; i < 4; i++) {
            run(session, in);
        }
        agent.exiting();
        JsonNode trace = trace(dir.resolve("exit.trace.json.gz"));
        assertEquals(4, named(trace, "ort::run").size());
        assertTrue(err().contains("vantage-agent: the start-up capture ends: the application exits"));
        session.close();
    }
}
