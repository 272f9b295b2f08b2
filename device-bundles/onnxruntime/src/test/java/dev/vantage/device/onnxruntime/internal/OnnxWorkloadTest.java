package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.WorkloadContext;

/** The onnx workload: bad input refused by check() in one line naming it; a run prints what it ran. */
public class OnnxWorkloadTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private OrtRuntime runtime;
    private OnnxWorkload workload;

    @Before
    public void setUp() throws Exception {
        runtime = OrtRuntime.standalone(tmp.newFolder("ort").toPath(), false);
        workload = new OnnxWorkload();
        workload.ort = runtime;
    }

    @After
    public void tearDown() {
        workload.deactivate();
        runtime.deactivate();
    }

    /** A context as the command line makes one. */
    private static final class Context implements WorkloadContext {
        Path model;
        int steps = 1;
        int batch;
        int seq;
        Device device = Device.CPU;
        Map<String, long[]> shapes = new LinkedHashMap<>();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        int stepped;

        @Override
        public int steps() {
            return steps;
        }

        @Override
        public long seed() {
            return 0;
        }

        @Override
        public int batchSize() {
            return batch;
        }

        @Override
        public Path model() {
            return model;
        }

        @Override
        public int sequenceLength() {
            return seq;
        }

        @Override
        public Map<String, long[]> inputShapes() {
            return shapes;
        }

        @Override
        public Device device() {
            return device;
        }

        @Override
        public PrintStream out() {
            return new PrintStream(out, true, StandardCharsets.UTF_8);
        }

        @Override
        public void step() {
            stepped++;
        }
    }

    private String refusal(Context c) {
        String m = assertThrows(IllegalArgumentException.class, () -> workload.check(c)).getMessage();
        assertTrue("one line: " + m, !m.contains("\n"));
        return m;
    }

    @Test
    public void refusesABadModelInOneLineBeforeAnyWork() throws Exception {
        Context c = new Context();
        assertEquals("onnx needs --model FILE.onnx", refusal(c));
        c.model = tmp.getRoot().toPath().resolve("missing.onnx");
        assertEquals("--model " + c.model + ": no such file", refusal(c));
        c.model = tmp.newFolder("dir.onnx").toPath();
        assertEquals("--model " + c.model + ": is a directory, not an .onnx file", refusal(c));
        c.model = tmp.newFile("garbage.onnx").toPath();
        Files.writeString(c.model, "this is no protobuf");
        assertTrue(refusal(c).startsWith("--model " + c.model + ": ONNX Runtime cannot load it: "));
        c.model = TinyOnnx.write(tmp.getRoot().toPath(), "fixed.onnx", TinyOnnx.fixedMlp());
        c.shapes.put("x", new long[] {3, 16});
        assertEquals("--input x=3x16: the model's input x is [2, 16]; dimension 0 must be 2", refusal(c));
        c.shapes.clear();
        c.device = new Device("npu", 0);
        assertTrue(refusal(c).startsWith("onnx runs on cpu"));
        assertEquals("no ONNX Runtime session stays open after a refusal", 0, c.stepped);
    }

    @Test
    public void inputsTheModelCannotRunOnAreRefusedBeforeAnyWorkWithoutOnnxRuntimesLog() throws Exception {
        Context c = new Context();
        c.model = Fixtures.miniLm();
        c.seq = 513;
        String m = refusal(c);
        assertTrue(m, m.startsWith("--seq-len 513: ONNX Runtime cannot run all-minilm-l6-v2-q.onnx on input_ids"
                + " [1, 513] long, attention_mask [1, 513] long, token_type_ids [1, 513] long: "));
        assertTrue(m, !m.contains("\u001B"));
        c.seq = 0;
        c.shapes.put("input_ids", new long[] {1, 64});
        m = refusal(c);
        assertTrue(m, m.startsWith("--input input_ids=1x64: ONNX Runtime cannot run all-minilm-l6-v2-q.onnx on"
                + " input_ids [1, 64] long, attention_mask [1, 128] long"));
        assertEquals(0, c.stepped);
    }

    @Test
    public void aBatchWhoseLargestTensorAloneOutgrowsTheMachineIsRefusedBeforeAnyWork() throws Exception {
        Context c = new Context();
        c.model = Fixtures.miniLm();
        c.batch = 1_000_000;
        String m = refusal(c);
        assertTrue(m, m.matches("--batch-size 1000000: one run of all-minilm-l6-v2-q\\.onnx needs at least [0-9.]+ GB of"
                + " memory \\(its largest tensor, [0-9.]+ KB a sample, times 1000000\\), and this machine has [0-9.]+ GB;"
                + " give a smaller --batch-size"));
        c.batch = 4;
        workload.check(c);
    }

    @Test
    public void loadingOnnxRuntimeLeavesNothingInTheTemporaryDirectory() throws Exception {
        runtime.environment();
        java.nio.file.Path extracted = OrtLeftovers.extractedLibraries();
        assertTrue("ONNX Runtime says where it extracted its libraries", extracted != null);
        assertTrue(extracted + " is left", !Files.exists(extracted));
        java.nio.file.Path log = java.nio.file.Path.of("/tmp", "mat-debug-" + ProcessHandle.current().pid() + ".log");
        assertTrue(log + " is left", !Files.exists(log));
    }

    @Test
    public void runsTheCheckedModelOneRunPerStep() throws Exception {
        Context c = new Context();
        c.model = Fixtures.miniLm();
        c.steps = 3;
        c.batch = 2;
        c.seq = 16;
        workload.check(c);
        workload.run(c);
        assertEquals(3, c.stepped);
        String line = c.out.toString(StandardCharsets.UTF_8);
        assertTrue(line, line.startsWith("onnx: 3 steps of all-minilm-l6-v2-q.onnx (input_ids [2, 16] long,"
                + " attention_mask [2, 16] long, token_type_ids [2, 16] long) -> last_hidden_state [2, 16, 384]"
                + " float, checksum "));
    }
}
