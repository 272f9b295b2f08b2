package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.device.onnxruntime.SessionOptionsFactory;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.core.internal.CoreForTests;

/**
 * Real models profiled through the profiler core, as the platform profiles them: read back from the Chrome trace
 * with Jackson and compared with ONNX Runtime's own profile file of the same runs.
 */
public class ProfiledRunTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private OrtRuntime runtime;
    private CoreForTests core;

    @Before
    public void setUp() throws Exception {
        runtime = OrtRuntime.standalone(tmp.newFolder("ort").toPath(), true);
        core = new CoreForTests(runtime, runtime);
    }

    @After
    public void tearDown() {
        core.close();
        runtime.deactivate();
    }

    /** The tiny model's five nodes as written: no fusion by ONNX Runtime's graph optimizations. */
    static final SessionOptionsFactory AS_WRITTEN = () -> {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.NO_OPT);
        return o;
    };

    private static final SessionOptionsFactory TWO_THREADS = () -> {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setIntraOpNumThreads(2);
        return o;
    };

    private Map<String, OnnxTensor> inputs(ProfiledSession s, int batch, int seq) throws Exception {
        return InputPlan.of(s.session().getInputInfo(), batch, seq, Map.of()).create(runtime.environment(), 1);
    }

    private Profile start(Schedule schedule, List<ProfileResult> cycles, Activity... more) {
        Set<Activity> activities = new HashSet<>(Set.of(Activity.CPU, OrtRuntime.ORT));
        activities.addAll(List.of(more));
        return core.profiler().profile().activities(activities).schedule(schedule).recordShapes(true)
                .onTraceReady(cycles::add).start();
    }

    private Path tiny() throws Exception {
        return TinyOnnx.write(tmp.getRoot().toPath(), "tiny-mlp.onnx", TinyOnnx.mlp());
    }

    /** The trace's events of one category. */
    private static List<JsonNode> events(JsonNode trace, String cat) {
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (cat.equals(e.path("cat").asText())) {
                list.add(e);
            }
        }
        return list;
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

    @Test
    public void nodeEventsEqualOrtsOwnProfileOneForOneWithinAMicrosecond() throws Exception {
        List<ProfileResult> cycles = new ArrayList<>();
        try (ProfiledSession session = runtime.open(Fixtures.miniLm(), TWO_THREADS)) {
            Map<String, OnnxTensor> in = inputs(session, 2, 64);
            Profile p = start(Schedule.of(0, 1, 3, 1, 0), cycles);
            for (int step = 0; step < 5; step++) {
                session.run(in).close();
                p.step();
            }
            p.stop();
            in.values().forEach(OnnxTensor::close);
        }
        assertEquals(1, cycles.size());
        Map<String, String> meta = cycles.get(0).trace().metadata();
        JsonNode trace = Fixtures.chrome(cycles.get(0).trace(), tmp.getRoot().toPath().resolve("t.json"));
        long base = trace.get("baseTimeNanoseconds").asLong();

        // ONNX Runtime's own nodes, in absolute nanoseconds: the file's microseconds from the session's start
        String[] files = meta.get("vantage.device.ort.ort_profiles").split(", ");
        String[] starts = meta.get("vantage.device.ort.ort_profile_starts_ns").split(", ");
        assertEquals(1, files.length);
        List<long[]> ort = new ArrayList<>();
        List<String> ortOps = new ArrayList<>();
        for (int f = 0; f < files.length; f++) {
            long origin = Long.parseLong(starts[f]);
            for (JsonNode e : Fixtures.ortEvents(Path.of(files[f]))) {
                if (e.get("cat").asText().equals("Node") && e.get("name").asText().endsWith("_kernel_time")) {
                    ort.add(new long[] {origin + e.get("ts").asLong() * 1000, e.get("dur").asLong() * 1000,
                            e.get("tid").asLong(), ortOps.size()});
                    ortOps.add(e.get("args").get("op_name").asText() + "|" + e.get("name").asText());
                }
            }
        }
        List<JsonNode> kernels = events(trace, "kernel");
        assertTrue("nodes of 3 runs", ort.size() > 300);
        assertEquals("one trace event per ONNX Runtime node", ort.size(), kernels.size());
        List<long[]> ours = new ArrayList<>();
        List<String> ourOps = new ArrayList<>();
        for (JsonNode k : kernels) {
            long ts = base + Math.round(k.get("ts").asDouble() * 1000);
            ours.add(new long[] {ts, Math.round(k.get("dur").asDouble() * 1000), k.get("tid").asLong(),
                    ourOps.size()});
            ourOps.add(k.get("name").asText() + "|" + k.get("args").get("Node name").asText() + "_kernel_time");
        }
        Comparator<long[]> order = Comparator.<long[]>comparingLong(a -> a[2]).thenComparingLong(a -> a[0]);
        ort.sort(order);
        ours.sort(order);
        for (int i = 0; i < ort.size(); i++) {
            long[] a = ort.get(i);
            long[] b = ours.get(i);
            String what = ortOps.get((int) a[3]);
            assertEquals("node " + i, what, ourOps.get((int) b[3]));
            assertEquals(what + " on ONNX Runtime's thread", a[2], b[2]);
            assertTrue(what + " starts " + (b[0] - a[0]) + " ns off", Math.abs(b[0] - a[0]) <= 1000);
            assertTrue(what + " lasts " + (b[1] - a[1]) + " ns off", Math.abs(b[1] - a[1]) <= 1000);
        }
    }

    @Test
    public void everyNodeLinksToTheOrtRunThatRanItByExternalIdCorrelationAndFlow() throws Exception {
        List<ProfileResult> cycles = new ArrayList<>();
        try (ProfiledSession session = runtime.open(tiny(), AS_WRITTEN)) {
            Map<String, OnnxTensor> in = inputs(session, 4, 1);
            Profile p = start(Schedule.of(0, 0, 4, 1, 0), cycles);
            for (int step = 0; step < 4; step++) {
                session.run(in).close();
                p.step();
            }
            p.stop();
        }
        JsonNode trace = Fixtures.chrome(cycles.get(0).trace(), tmp.getRoot().toPath().resolve("t.json"));
        List<JsonNode> runs = named(trace, "ort::run");
        List<JsonNode> modelRuns = named(trace, "model_run");
        List<JsonNode> kernels = events(trace, "kernel");
        assertEquals(4, runs.size());
        assertEquals(4, modelRuns.size());
        assertEquals(4 * 5, kernels.size());
        Map<Long, JsonNode> runById = new HashMap<>();
        for (JsonNode r : runs) {
            assertEquals("cpu_op", r.get("cat").asText());
            assertEquals("[[4, 16]]", r.get("args").get("Input Dims").toString().replace(",", ", "));
            runById.put(r.get("args").get("External id").asLong(), r);
        }
        Map<Long, JsonNode> launchByCorrelation = new HashMap<>();
        for (JsonNode m : modelRuns) {
            assertEquals("privateuse1_runtime", m.get("cat").asText());
            JsonNode run = runById.get(m.get("args").get("External id").asLong());
            assertNotNull("model_run belongs to an ort::run", run);
            assertEquals(run.get("tid").asLong(), m.get("tid").asLong());
            launchByCorrelation.put(m.get("args").get("correlation").asLong(), m);
        }
        Set<String> ops = new HashSet<>();
        for (JsonNode k : kernels) {
            ops.add(k.get("name").asText());
            JsonNode run = runById.get(k.get("args").get("External id").asLong());
            assertNotNull(k.toString(), run);
            JsonNode launch = launchByCorrelation.get(k.get("args").get("correlation").asLong());
            assertNotNull("every node has its model_run's correlation: " + k, launch);
            assertEquals(launch.get("args").get("External id").asLong(), k.get("args").get("External id").asLong());
            double start = k.get("ts").asDouble();
            assertTrue("a node runs inside its ort::run", start >= run.get("ts").asDouble() - 1
                    && start + k.get("dur").asDouble() <= run.get("ts").asDouble() + run.get("dur").asDouble() + 1);
            assertEquals("CPUExecutionProvider", k.get("args").get("Provider").asText());
        }
        assertEquals(Set.of("MatMul", "Add", "Relu", "Tanh"), ops);
        // one flow pair per node, as Kineto gives each device event its own: chrome://tracing draws one arrow per id
        Map<Long, Integer> starts = new HashMap<>();
        Map<Long, Integer> ends = new HashMap<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("ac2g".equals(e.path("cat").asText())) {
                (("s".equals(e.get("ph").asText())) ? starts : ends).merge(e.get("id").asLong(), 1, Integer::sum);
            }
        }
        assertEquals("a flow to each node", 20, ends.size());
        assertEquals("ids unique in the file: " + ends, Set.of(1), new HashSet<>(ends.values()));
        assertEquals("each flow starts once, on a model_run", ends.keySet(), starts.keySet());
        assertEquals(Set.of(1), new HashSet<>(starts.values()));
        // the device's rows: ONNX Runtime's threads, named after its provider
        boolean named = false;
        for (JsonNode e : trace.get("traceEvents")) {
            if ("process_name".equals(e.path("name").asText())
                    && e.get("args").get("name").asText().equals("ORT 0 (CPUExecutionProvider, ONNX Runtime 1.29.0)")) {
                named = true;
            }
        }
        assertTrue(named);
    }

    @Test
    public void scheduleWindowsHoldOnlyTheirOwnRuns() throws Exception {
        List<ProfileResult> cycles = new ArrayList<>();
        try (ProfiledSession session = runtime.open(tiny(), AS_WRITTEN)) {
            Map<String, OnnxTensor> in = inputs(session, 2, 1);
            Profile p = start(Schedule.of(1, 1, 2, 2, 0), cycles);
            for (int step = 0; step < 9; step++) {
                session.run(in).close();
                p.step();
            }
            p.stop();
        }
        assertEquals(2, cycles.size());
        for (ProfileResult cycle : cycles) {
            JsonNode trace = Fixtures.chrome(cycle.trace(), tmp.newFile().toPath());
            List<JsonNode> runs = named(trace, "ort::run");
            assertEquals(2, runs.size());
            assertEquals(2 * 5, events(trace, "kernel").size());
            double first = runs.stream().mapToDouble(r -> r.get("ts").asDouble()).min().orElseThrow();
            double last = runs.stream().mapToDouble(r -> r.get("ts").asDouble() + r.get("dur").asDouble()).max()
                    .orElseThrow();
            for (JsonNode k : events(trace, "kernel")) {
                assertTrue(k.get("ts").asDouble() >= first - 1);
                assertTrue(k.get("ts").asDouble() + k.get("dur").asDouble() <= last + 1);
            }
            assertEquals(2, named(trace, "model_run").size());
        }
    }

    @Test
    public void aLongWindowChangesProfilingSessionsBeforeOrtsCapAndKeepsEveryRun() throws Exception {
        runtime.firstSessionRuns(3);
        List<ProfileResult> cycles = new ArrayList<>();
        int runs = 0;
        try (ProfiledSession session = runtime.open(tiny(), AS_WRITTEN)) {
            Map<String, OnnxTensor> in = inputs(session, 2, 1);
            Profile p = start(Schedule.of(0, 0, 1, 1, 0), cycles);
            // the third run asks for the next session, made in the background while the runs go on
            OrtWindow window = runtime.window();
            long deadline = System.nanoTime() + 20_000_000_000L;
            while ((runs < 40 || window.rotations() == 0) && System.nanoTime() < deadline) {
                session.run(in).close();
                runs++;
            }
            assertTrue("the window changed sessions", window.rotations() >= 1);
            p.step();
            p.stop();
        }
        Map<String, String> meta = cycles.get(0).trace().metadata();
        assertTrue(meta.toString(), Integer.parseInt(meta.get("vantage.device.ort.rotations")) >= 1);
        assertTrue(Integer.parseInt(meta.get("vantage.device.ort.profiling_sessions")) >= 2);
        assertEquals(Integer.toString(runs), meta.get("vantage.device.ort.runs"));
        assertEquals(Integer.toString(runs * 5), meta.get("vantage.device.ort.node_events"));
        JsonNode trace = Fixtures.chrome(cycles.get(0).trace(), tmp.getRoot().toPath().resolve("t.json"));
        assertEquals(runs, named(trace, "ort::run").size());
        assertEquals(runs * 5, events(trace, "kernel").size());
        Set<Long> correlations = new HashSet<>();
        for (JsonNode k : events(trace, "kernel")) {
            correlations.add(k.get("args").get("correlation").asLong());
        }
        assertEquals("each run's nodes keep their own flow across the sessions", runs, correlations.size());
    }

    @Test
    public void memoryFiguresBecomeMemoryEventsColumnsAndStats() throws Exception {
        List<ProfileResult> cycles = new ArrayList<>();
        try (ProfiledSession session = runtime.open(Fixtures.miniLm(), TWO_THREADS)) {
            Map<String, OnnxTensor> in = inputs(session, 1, 32);
            Profile p = start(Schedule.of(0, 0, 2, 1, 0), cycles, Activity.MEM);
            for (int step = 0; step < 2; step++) {
                session.run(in).close();
                p.step();
            }
            p.stop();
        }
        JsonNode trace = Fixtures.chrome(cycles.get(0).trace(), tmp.getRoot().toPath().resolve("t.json"));
        List<JsonNode> memory = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if ("[memory]".equals(e.path("name").asText())) {
                memory.add(e);
            }
        }
        assertFalse(memory.isEmpty());
        long runThread = named(trace, "ort::run").get(0).get("tid").asLong();
        for (JsonNode m : memory) {
            assertEquals("i", m.get("ph").asText());
            assertEquals("on the thread that ran the model", runThread, m.get("tid").asLong());
            assertTrue(m.get("args").get("Total Allocated").asLong() > 0);
            assertTrue(m.get("args").get("Total Reserved").asLong() >= m.get("args").get("Total Allocated").asLong());
        }
        Map<String, Long> stats = runtime.stats().values();
        assertTrue(stats.toString(), stats.get("allocated_bytes.all.current") > 0);
        assertTrue(stats.get("allocated_bytes.all.peak") >= stats.get("allocated_bytes.all.current"));
        assertTrue(stats.get("reserved_bytes.all.current") > 0);
        String table = cycles.get(0).keyAverages().table(dev.vantage.profiler.api.SortKey.SELF_DEVICE_TIME_TOTAL, 5);
        assertTrue(table, table.contains("ORT Mem"));
        long sum = 0;
        for (JsonNode m : memory) {
            sum += m.get("args").get("Bytes").asLong();
        }
        EventAverage run = row(cycles.get(0).keyAverages().rows(), "ort::run");
        assertEquals("ort::run's ORT Mem is what its nodes reported", sum, run.deviceMemoryBytes());
    }

    private static EventAverage row(List<EventAverage> rows, String name) {
        for (EventAverage r : rows) {
            if (r.key().equals(name)) {
                return r;
            }
        }
        throw new AssertionError("no row " + name + " in " + rows);
    }

    @Test
    public void recordedShapesGroupRunsAndNodesByInputShape() throws Exception {
        List<ProfileResult> cycles = new ArrayList<>();
        try (ProfiledSession session = runtime.open(tiny(), AS_WRITTEN)) {
            Map<String, OnnxTensor> two = inputs(session, 2, 1);
            Map<String, OnnxTensor> three = inputs(session, 3, 1);
            Profile p = start(Schedule.of(0, 0, 1, 1, 0), cycles);
            session.run(two).close();
            session.run(three).close();
            session.run(three).close();
            p.step();
            p.stop();
        }
        List<EventAverage> rows = cycles.get(0).keyAverages(true, 0).rows();
        Map<String, Long> calls = new HashMap<>();
        for (EventAverage r : rows) {
            calls.put(r.key() + " " + r.inputShapes(), r.count());
        }
        assertEquals(calls.toString(), Long.valueOf(1), calls.get("ort::run [[2, 16]]"));
        assertEquals(Long.valueOf(2), calls.get("ort::run [[3, 16]]"));
        // ONNX Runtime lists the inputs that are no initializers: the weights are not in a node's shapes
        assertEquals(calls.toString(), Long.valueOf(1), calls.get("MatMul [[2, 16]]"));
        assertEquals(Long.valueOf(2), calls.get("MatMul [[3, 16]]"));
        assertEquals(Long.valueOf(2), calls.get("MatMul [[3, 32]]"));
        assertEquals(Long.valueOf(2), calls.get("Add [[3, 32], [32]]"));
        // grouped by name only, the two shapes are one row
        assertEquals(3, row(cycles.get(0).keyAverages().rows(), "ort::run").count());
    }

    @Test
    public void declinesWhenNoSessionIsOpenAndASessionOpenedDuringAWindowJoinsIt() throws Exception {
        assertNull("nothing to record", runtime.configure(Set.of(Activity.CPU, OrtRuntime.ORT), Map.of()));
        assertNull("ORT not asked for", runtime.configure(Set.of(Activity.CPU), Map.of()));
        List<ProfileResult> cycles = new ArrayList<>();
        Path model = tiny();
        try (ProfiledSession first = runtime.open(model, AS_WRITTEN)) {
            Profile p = start(Schedule.of(0, 0, 1, 1, 0), cycles);
            try (ProfiledSession late = runtime.open(model, AS_WRITTEN)) {
                late.run(inputs(late, 1, 1)).close();
            }
            first.run(inputs(first, 1, 1)).close();
            p.step();
            p.stop();
        }
        Map<String, String> meta = cycles.get(0).trace().metadata();
        assertEquals("2", meta.get("vantage.device.ort.runs"));
        assertEquals("10", meta.get("vantage.device.ort.node_events"));
    }

    @Test
    public void concurrentRunsLinkEachNodeToItsOwnThreadsRun() throws Exception {
        List<ProfileResult> cycles = new ArrayList<>();
        int threads = 3;
        int perThread = 6;
        try (ProfiledSession session = runtime.open(tiny(), AS_WRITTEN)) {
            Profile p = start(Schedule.of(0, 0, 1, 1, 0), cycles);
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    try {
                        Map<String, OnnxTensor> in = inputs(session, 2, 1);
                        go.await();
                        for (int i = 0; i < perThread; i++) {
                            session.run(in).close();
                        }
                    } catch (Exception | AssertionError e) {
                        failures.add(e);
                    }
                });
                w.start();
                workers.add(w);
            }
            go.countDown();
            for (Thread w : workers) {
                w.join();
            }
            assertEquals(List.of(), failures);
            p.step();
            p.stop();
        }
        JsonNode trace = Fixtures.chrome(cycles.get(0).trace(), tmp.getRoot().toPath().resolve("t.json"));
        Map<Long, JsonNode> runById = new HashMap<>();
        for (JsonNode r : named(trace, "ort::run")) {
            runById.put(r.get("args").get("External id").asLong(), r);
        }
        assertEquals(threads * perThread, runById.size());
        Map<Long, Integer> nodesPerRun = new HashMap<>();
        for (JsonNode k : events(trace, "kernel")) {
            JsonNode run = runById.get(k.get("args").get("External id").asLong());
            assertNotNull(k.toString(), run);
            nodesPerRun.merge(run.get("args").get("External id").asLong(), 1, Integer::sum);
            assertTrue("inside its run", k.get("ts").asDouble() >= run.get("ts").asDouble() - 1
                    && k.get("ts").asDouble() + k.get("dur").asDouble()
                    <= run.get("ts").asDouble() + run.get("dur").asDouble() + 1);
        }
        for (int n : nodesPerRun.values()) {
            assertEquals(5, n);
        }
        assertEquals(threads * perThread, nodesPerRun.size());
    }
}
