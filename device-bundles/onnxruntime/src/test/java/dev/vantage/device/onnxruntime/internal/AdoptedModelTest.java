package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.AdoptedModel;
import dev.vantage.device.onnxruntime.ForeignModel;
import dev.vantage.device.onnxruntime.ForeignSession;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.core.internal.CoreForTests;

/**
 * A model that another ONNX Runtime runs, adopted as the agent adopts an application's: its calls go to the
 * application's own session outside windows and to the device's profiling sessions inside them, which the
 * {@link ForeignModel} makes. Here the "other" ONNX Runtime is the embedded one, reached only through the
 * foreign interfaces, with objects crossing as {@code Object}.
 */
public class AdoptedModelTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private OrtRuntime runtime;
    private CoreForTests core;
    private OrtEnvironment env;

    @Before
    public void setUp() throws Exception {
        runtime = OrtRuntime.standalone(tmp.newFolder("ort").toPath(), true);
        core = new CoreForTests(runtime, runtime);
        env = OrtEnvironment.getEnvironment();
    }

    @After
    public void tearDown() {
        core.close();
        runtime.deactivate();
    }

    /** One application call: its inputs. */
    private record Call(Map<String, OnnxTensor> inputs) {
    }

    /** The application's model as the agent would describe it, counting the sessions it makes. */
    private final class AppModel implements ForeignModel {
        final Path model;
        final AtomicInteger sessions = new AtomicInteger();
        final AtomicInteger runsOnTwins = new AtomicInteger();
        volatile boolean failing;

        AppModel(Path model) {
            this.model = model;
        }

        @Override
        public String name() {
            return "app-model.onnx";
        }

        @Override
        public String runtimeVersion() {
            return "9.8.7-app";
        }

        @Override
        public ForeignSession openProfiling(String prefix) throws Exception {
            if (failing) {
                throw new IllegalStateException("the application's ONNX Runtime refused");
            }
            OrtSession.SessionOptions o = ProfiledRunTest.AS_WRITTEN.create();
            o.enableProfiling(prefix);
            OrtSession s = env.createSession(model.toString(), o);
            o.close();
            sessions.incrementAndGet();
            return new ForeignSession() {
                @Override
                public long profilingStartNanos() throws Exception {
                    return s.getProfilingStartTimeInNs();
                }

                @Override
                public Object run(Object call) throws Exception {
                    runsOnTwins.incrementAndGet();
                    return s.run(((Call) call).inputs());
                }

                @Override
                public long[][] inputShapes(Object call) {
                    return Twin.shapes(((Call) call).inputs());
                }

                @Override
                public String[] inputTypes(Object call) {
                    return ((Call) call).inputs().values().stream().map(t -> t.getInfo().type.name())
                            .toArray(String[]::new);
                }

                @Override
                public String endProfiling() throws Exception {
                    try {
                        return s.endProfiling();
                    } finally {
                        s.close();
                    }
                }

                @Override
                public void close() throws Exception {
                    s.close();
                }
            };
        }
    }

    /** Runs one application call as the agent does: on the window's session when one records, else its own. */
    private static int run(AdoptedModel adopted, OrtSession own, Call call) throws Exception {
        Optional<Object> recorded = adopted.run(call);
        if (recorded.isPresent()) {
            ((OrtSession.Result) recorded.get()).close();
            return 1;
        }
        own.run(call.inputs()).close();
        return 0;
    }

    private Map<String, OnnxTensor> inputs(OrtSession s) throws Exception {
        return InputPlan.of(s.getInputInfo(), 3, 1, Map.of()).create(env, 1);
    }

    @Test
    public void recordsTheAdoptedModelsRunsAndNodesInWindowsOnlyUnderItsOwnVersion() throws Exception {
        Path tiny = TinyOnnx.write(tmp.getRoot().toPath(), "tiny-mlp.onnx", TinyOnnx.mlp());
        AppModel app = new AppModel(tiny);
        List<ProfileResult> cycles = new ArrayList<>();
        int onTwins = 0;
        try (OrtSession own = env.createSession(tiny.toString(), ProfiledRunTest.AS_WRITTEN.create());
                AdoptedModel adopted = runtime.adopt(app)) {
            Call call = new Call(inputs(own));
            assertEquals("no window: the application's own session", 0, run(adopted, own, call));
            assertEquals("nothing is made before a window", 0, app.sessions.get());
            Profile p = core.profiler().profile().activities(Set.of(Activity.CPU, OrtRuntime.ORT))
                    .schedule(Schedule.of(1, 1, 3, 1, 0)).recordShapes(true).onTraceReady(cycles::add).start();
            for (int step = 0; step < 7; step++) {
                onTwins += run(adopted, own, call);
                p.step();
            }
            p.stop();
            assertEquals("after the window: the application's own session again", 0, run(adopted, own, call));
        }
        assertEquals("the three recorded steps ran on the profiling session", 3, onTwins);
        assertEquals(3, app.runsOnTwins.get());
        assertEquals("one profiling session, made at the warm-up step", 1, app.sessions.get());
        assertEquals(1, cycles.size());
        Map<String, String> meta = cycles.get(0).trace().metadata();
        assertEquals("ONNX Runtime 9.8.7-app", meta.get("vantage.device.ort.runtime"));
        assertEquals("app-model.onnx", meta.get("vantage.device.ort.sessions"));
        JsonNode trace = Fixtures.chrome(cycles.get(0).trace(), tmp.getRoot().toPath().resolve("t.json"));
        List<JsonNode> runs = new ArrayList<>();
        List<JsonNode> kernels = new ArrayList<>();
        Set<String> processes = new HashSet<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("ort::run".equals(e.path("name").asText()) && "X".equals(e.path("ph").asText())) {
                runs.add(e);
            } else if ("kernel".equals(e.path("cat").asText())) {
                kernels.add(e);
            } else if ("process_name".equals(e.path("name").asText())) {
                processes.add(e.get("args").get("name").asText());
            }
        }
        assertEquals(3, runs.size());
        for (JsonNode r : runs) {
            assertEquals("app-model.onnx", r.get("args").get("ORT session").asText());
            assertEquals("[[3, 16]]", r.get("args").get("Input Dims").toString().replace(",", ", "));
            assertEquals("[\"float\"]", r.get("args").get("Input type").toString());
        }
        // the nodes, one for one with ONNX Runtime's own file of the same runs
        List<JsonNode> own = new ArrayList<>();
        for (JsonNode e : Fixtures.ortEvents(Path.of(meta.get("vantage.device.ort.ort_profiles")))) {
            if (e.get("cat").asText().equals("Node") && e.get("name").asText().endsWith("_kernel_time")) {
                own.add(e);
            }
        }
        assertEquals(3 * 5, own.size());
        assertEquals(own.size(), kernels.size());
        assertTrue(processes.toString(), processes.contains("ORT 0 (CPUExecutionProvider, ONNX Runtime 9.8.7-app)"));
    }

    @Test
    public void aModelWhoseSessionCannotBeMadeRunsOnTheApplicationsOwnAndTheTraceSaysWhy() throws Exception {
        Path tiny = TinyOnnx.write(tmp.getRoot().toPath(), "tiny-mlp.onnx", TinyOnnx.mlp());
        AppModel app = new AppModel(tiny);
        app.failing = true;
        List<ProfileResult> cycles = new ArrayList<>();
        int onTwins = 0;
        try (OrtSession own = env.createSession(tiny.toString(), ProfiledRunTest.AS_WRITTEN.create());
                AdoptedModel adopted = runtime.adopt(app)) {
            Call call = new Call(inputs(own));
            Profile p = core.profiler().profile().activities(Set.of(Activity.CPU, OrtRuntime.ORT))
                    .schedule(Schedule.of(0, 1, 2, 1, 0)).onTraceReady(cycles::add).start();
            for (int step = 0; step < 3; step++) {
                onTwins += run(adopted, own, call);
                p.step();
            }
            p.stop();
        }
        assertEquals(0, onTwins);
        String errors = cycles.get(0).trace().metadata().toString();
        assertTrue(errors, errors.contains("could not make a profiling session of app-model.onnx: the application's"
                + " ONNX Runtime refused"));
    }

    @Test
    public void aProfileStartedBeforeAnyModelRecordsTheModelsAdoptedWhileItRunsWhenAskedTo() throws Exception {
        Path tiny = TinyOnnx.write(tmp.getRoot().toPath(), "tiny-mlp.onnx", TinyOnnx.mlp());
        for (boolean without : new boolean[] {false, true}) {
            runtime.recordWithoutSessions(without);
            AppModel app = new AppModel(tiny);
            List<ProfileResult> cycles = new ArrayList<>();
            int onTwins = 0;
            Profile p = core.profiler().profile().activities(Set.of(Activity.CPU, OrtRuntime.ORT))
                    .schedule(Schedule.of(0, 1, 2, 1, 0)).onTraceReady(cycles::add).start();
            // an application that creates its session after the capture started, during the warm-up step
            try (OrtSession own = env.createSession(tiny.toString(), ProfiledRunTest.AS_WRITTEN.create());
                    AdoptedModel adopted = runtime.adopt(app)) {
                Call call = new Call(inputs(own));
                for (int step = 0; step < 3; step++) {
                    onTwins += run(adopted, own, call);
                    p.step();
                }
                p.stop();
            }
            assertEquals("recorded without sessions at the start: " + without, without ? 2 : 0, onTwins);
        }
    }

    @Test
    public void aClosedAdoptedModelIsNoLongerRecorded() throws Exception {
        Path tiny = TinyOnnx.write(tmp.getRoot().toPath(), "tiny-mlp.onnx", TinyOnnx.mlp());
        AppModel app = new AppModel(tiny);
        AdoptedModel adopted = runtime.adopt(app);
        adopted.close();
        adopted.close();
        Profile p = core.profiler().profile().activities(Set.of(Activity.CPU, OrtRuntime.ORT))
                .schedule(Schedule.of(0, 1, 2, 1, 0)).start();
        p.step();
        p.stop();
        assertEquals(0, app.sessions.get());
        assertFalse(adopted.run(new Call(Map.of())).isPresent());
    }
}
