package dev.vantage.trace.engine.read;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * ONNX Runtime's profile read in parts on several threads gives the columns one pass gives, in the file's order; a
 * file that cannot be split, or whose part does not read, is read in one pass with that pass's account of it.
 */
public class OrtSplitTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Lines as ONNX Runtime writes them: one event a line, a comma ending every line but the last. */
    private static List<String> events(int runs) {
        List<String> lines = new ArrayList<>();
        lines.add("{\"cat\" : \"Session\",\"pid\" :1,\"tid\" :7,\"dur\" :120,\"ts\" :3,\"ph\" : \"X\","
                + "\"name\" :\"session_initialization\",\"args\" : {}}");
        long ts = 200;
        for (int r = 0; r < runs; r++) {
            long runStart = ts;
            for (int n = 0; n < 5; n++) {
                String node = "layer" + (r % 7) + "/MatMul_" + n;
                String op = n % 2 == 0 ? "MatMul" : "Add";
                lines.add("{\"cat\" : \"Node\",\"pid\" :1,\"tid\" :" + (7 + n % 2) + ",\"dur\" :" + (n + 1)
                        + ",\"ts\" :" + ts + ",\"ph\" : \"X\",\"name\" :\"" + node + "_kernel_time\",\"args\" : {"
                        + "\"op_name\" : \"" + op + "\",\"provider\" : \"CPUExecutionProvider\",\"node_index\" : \""
                        + n + "\",\"activation_size\" : \"" + (r * 8 + n) + "\",\"output_size\" : \"64\","
                        + "\"input_type_shape\" : [{\"float\":[" + (r % 3 + 1) + ",8]},{\"int64\":[2]}],"
                        + "\"output_type_shape\" : [{\"float\":[1,8]}],"
                        + "\"thread_scheduling_stats\" : {\"main_thread\": {\"thread_pool_name\": \"x\"}}}}");
                ts += n + 2;
            }
            lines.add("{\"cat\" : \"Session\",\"pid\" :1,\"tid\" :7,\"dur\" :" + (ts - runStart)
                    + ",\"ts\" :" + runStart + ",\"ph\" : \"X\",\"name\" :\"model_run\",\"args\" : {}}");
            ts += 3;
        }
        return lines;
    }

    private Path write(String name, List<String> lines, String lineEnd) throws IOException {
        Path f = tmp.getRoot().toPath().resolve(name);
        Files.writeString(f, "[" + lineEnd + String.join("," + lineEnd, lines) + lineEnd + "]" + lineEnd,
                StandardCharsets.UTF_8);
        return f;
    }

    @Test
    public void partsReadAsOnePassDoes() throws Exception {
        Path f = write("p.json", events(400), "\n");
        OrtProfile one = OrtProfileReader.read(f, 1);
        assertEquals(1 + 400 * 6, one.size);
        for (int parts : new int[] {2, 3, 4}) {
            OrtProfile split = OrtProfileReader.read(f, parts);
            assertEquals(parts, split.parts);
            assertSame(one, split);
        }
    }

    @Test
    public void carriageReturnsSplitToo() throws Exception {
        Path f = write("crlf.json", events(100), "\r\n");
        OrtProfile split = OrtProfileReader.read(f, 3);
        assertEquals(3, split.parts);
        assertSame(OrtProfileReader.read(f, 1), split);
    }

    @Test
    public void aFileOnOneLineIsReadInOnePass() throws Exception {
        Path f = tmp.getRoot().toPath().resolve("line.json");
        Files.writeString(f, "[" + String.join(",", events(100)) + "]", StandardCharsets.UTF_8);
        OrtProfile e = OrtProfileReader.read(f, 4);
        assertEquals(1, e.parts);
        assertSame(OrtProfileReader.read(f, 1), e);
    }

    @Test
    public void aFileCutShortKeepsWhatOnePassKeeps() throws Exception {
        Path whole = write("whole.json", events(200), "\n");
        byte[] b = Files.readAllBytes(whole);
        Path cut = tmp.getRoot().toPath().resolve("cut.json");
        Files.write(cut, java.util.Arrays.copyOf(b, b.length * 4 / 5));
        OrtProfile one = OrtProfileReader.read(cut, 1);
        OrtProfile split = OrtProfileReader.read(cut, 3);
        assertEquals(1, split.parts);
        assertSame(one, split);
    }

    @Test
    public void aDamagedPartGivesOnePassAccount() throws Exception {
        List<String> lines = events(200);
        lines.set(600, lines.get(600).replace("\"dur\" :", "\"dur\" ::"));
        Path f = write("bad.json", lines, "\n");
        String one = assertThrows(IOException.class, () -> OrtProfileReader.read(f, 1)).getMessage();
        String split = assertThrows(IOException.class, () -> OrtProfileReader.read(f, 4)).getMessage();
        assertEquals(one, split);
        assertEquals(true, one.contains("is damaged at byte"));
    }

    @Test
    public void partsBelowOneAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> OrtProfileReader.read(tmp.getRoot().toPath(), 0));
    }

    /** Every column of every event alike, strings by their text. */
    static void assertSame(OrtProfile a, OrtProfile b) {
        assertEquals(a.size, b.size);
        assertEquals(a.total, b.total);
        for (int i = 0; i < a.size; i++) {
            String at = "event " + i;
            assertEquals(at, a.kind[i], b.kind[i]);
            assertEquals(at, a.tid[i], b.tid[i]);
            assertEquals(at, a.tsMicros[i], b.tsMicros[i]);
            assertEquals(at, a.durMicros[i], b.durMicros[i]);
            assertEquals(at, a.string(a.name[i]), b.string(b.name[i]));
            assertEquals(at, a.string(a.op[i]), b.string(b.op[i]));
            assertEquals(at, a.string(a.provider[i]), b.string(b.provider[i]));
            assertEquals(at, a.string(a.inputDims[i]), b.string(b.inputDims[i]));
            assertEquals(at, a.string(a.inputShape[i]), b.string(b.inputShape[i]));
            assertEquals(at, a.string(a.outputShape[i]), b.string(b.outputShape[i]));
            assertEquals(at, a.nodeIndex[i], b.nodeIndex[i]);
            assertEquals(at, a.activationSize[i], b.activationSize[i]);
            assertEquals(at, a.parameterSize[i], b.parameterSize[i]);
            assertEquals(at, a.outputSize[i], b.outputSize[i]);
            assertEquals(at, a.memInUse[i], b.memInUse[i]);
            assertEquals(at, a.memInUsePeak[i], b.memInUsePeak[i]);
        }
    }
}
