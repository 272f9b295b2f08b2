package dev.vantage.exporter.chrome.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/** Device rows, the GC track, flows and distributed info, as Kineto's consumers (HTA, tb_plugin) read them. */
public class ChromeKinetoLayoutTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private String text;
    private JsonNode root;

    private void export() throws IOException {
        FakeTrace trace = new FakeTrace(List.of(
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 1_000, 5_000, 10).withSequence(5, -1),
                Ev.host("aclrtLaunchKernel", EventKind.RUNTIME, 1, 1_500, 200, 15).withFlow(77),
                Ev.kernel("mm_kernel", "npu", 0, 3, 2_000, 1_500, 20, 10).withFlow(77),
                Ev.kernel("add_kernel", "npu", 0, 1, 4_000, 500, 21, 10),
                Ev.host("aten::relu", EventKind.CPU_OP, 1, 6_500, 100, 13).withSequence(6, -1),
                Ev.host("autograd::engine::evaluate_function: MmBackward0", EventKind.CPU_OP, 9, 7_900, 1_200, 12)
                        .withSequence(5, 1),
                Ev.host("MmBackward0", EventKind.CPU_OP, 9, 8_000, 1_000, 11).withSequence(5, 1),
                Ev.host("GC: G1 Young Generation (G1 Evacuation Pause)", EventKind.GC, -1, 6_000, 300, 30)),
                List.of(new TraceThread(1, "main", 0), new TraceThread(9, "autograd", 0)),
                List.of(new TraceDevice("npu", 0, true, Map.of("name", "Emulated NPU", "totalGlobalMem", "1024"))),
                Map.of("rank", "3", "world_size", "8"));
        Path file = tmp.getRoot().toPath().resolve("t.json");
        new ChromeTraceExporter().export(trace, file);
        text = Files.readString(file);
        root = new ObjectMapper().readTree(text);
    }

    private List<JsonNode> events(String ph, String name) {
        List<JsonNode> list = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            if (ph.equals(e.path("ph").asText()) && (name == null || name.equals(e.path("name").asText()))) {
                list.add(e);
            }
        }
        return list;
    }

    private JsonNode metadata(String name, long pid, long tid) {
        for (JsonNode e : events("M", name)) {
            if (e.get("pid").asLong() == pid && e.get("tid").asLong() == tid) {
                return e.get("args");
            }
        }
        throw new AssertionError("no " + name + " for " + pid + "/" + tid);
    }

    @Test
    public void distributedInfoPrecedesTheEventsWithARankHtaFinds() throws IOException {
        export();
        Matcher m = Pattern.compile("\"rank\":\\s+(\\d+)").matcher(text);
        assertTrue(m.find());
        assertEquals("3", m.group(1));
        assertTrue(text.indexOf("\"distributedInfo\"") < text.indexOf("\"traceEvents\""));
        assertEquals(8, root.get("distributedInfo").get("world_size").asInt());
        assertEquals(null, root.get("rank"));
    }

    @Test
    public void aRunWithAProcessGroupNamesItsBackendAndGroupAsKinetoDoes() throws IOException {
        JsonNode info = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dev.vantage.trace.engine.write.KinetoMetadata.distributedInfo(
                java.util.Map.of("rank", "1", "world_size", "4", "distributed_backend", "npu:hccl")));
        assertEquals("npu:hccl", info.get("backend").asText());
        assertEquals(1, info.get("rank").asInt());
        assertEquals(1, info.get("pg_count").asInt());
        JsonNode pg = info.get("pg_config").get(0);
        assertEquals("default_pg", pg.get("pg_desc").asText());
        assertEquals(4, pg.get("pg_size").asInt());
        assertEquals("[0,1,2,3]", pg.get("ranks").toString());
        // without a process group: Kineto's plain form
        assertEquals("none", new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                dev.vantage.trace.engine.write.KinetoMetadata.distributedInfo(java.util.Map.of())).get("backend").asText());
    }

    @Test
    public void aRankTakesKinetosTrimonthBaseSoRanksShareOneClock() throws IOException {
        export();
        long trimonth = 7_889_238L * 1_000_000_000L;
        long base = root.get("baseTimeNanoseconds").asLong();
        assertEquals(FakeTrace.START / trimonth * trimonth, base);
        JsonNode relu = events("X", "aten::relu").get(0);
        assertEquals((FakeTrace.START + 6_500 - base) / 1000.0, relu.get("ts").asDouble(), 1e-3);
    }

    @Test
    public void deviceWorkIsOnADeviceProcessWithARowPerStreamBelowTheHost() throws IOException {
        export();
        JsonNode props = root.get("deviceProperties").get(0);
        assertEquals(0, props.get("id").asInt());
        assertEquals("Emulated NPU", props.get("name").asText());
        assertEquals(1024, props.get("totalGlobalMem").asLong());
        assertTrue(props.get("emulated").asBoolean());

        JsonNode kernel = events("X", "mm_kernel").get(0);
        assertEquals("kernel", kernel.get("cat").asText());
        assertEquals(0, kernel.get("pid").asLong());
        assertEquals(3, kernel.get("tid").asLong());
        assertEquals(10, kernel.get("args").get("External id").asLong());
        assertEquals(3, kernel.get("args").get("stream").asLong());

        assertEquals("NPU 0 (emulated)", metadata("process_name", 0, 0).get("name").asText());
        assertEquals("NPU 0", metadata("process_labels", 0, 0).get("labels").asText());
        long deviceSort = metadata("process_sort_index", 0, 0).get("sort_index").asLong();
        long hostSort = metadata("process_sort_index", 4242, 0).get("sort_index").asLong();
        assertTrue("host rows above device rows", hostSort < deviceSort);
        assertEquals("stream 1", metadata("thread_name", 0, 1).get("name").asText());
        assertEquals("stream 3", metadata("thread_name", 0, 3).get("name").asText());
        assertTrue(metadata("thread_sort_index", 0, 1).get("sort_index").asLong()
                < metadata("thread_sort_index", 0, 3).get("sort_index").asLong());
    }

    @Test
    public void aLaunchIsLinkedToItsKernelByAnAc2gFlowCarryingTheRuntimeCorrelation() throws IOException {
        export();
        List<JsonNode> starts = new ArrayList<>();
        List<JsonNode> ends = new ArrayList<>();
        for (JsonNode e : root.get("traceEvents")) {
            if ("ac2g".equals(e.path("cat").asText())) {
                ("s".equals(e.get("ph").asText()) ? starts : ends).add(e);
            }
        }
        assertEquals(1, starts.size());
        assertEquals(1, ends.size());
        JsonNode launch = events("X", "aclrtLaunchKernel").get(0);
        JsonNode kernel = events("X", "mm_kernel").get(0);
        assertEquals("privateuse1_runtime", launch.get("cat").asText());
        assertEquals(77, launch.get("args").get("correlation").asLong());
        assertEquals(77, kernel.get("args").get("correlation").asLong());
        assertEquals(77, starts.get(0).get("id").asLong());
        assertEquals(77, ends.get(0).get("id").asLong());
        assertEquals(launch.get("pid").asLong(), starts.get(0).get("pid").asLong());
        assertEquals(launch.get("tid").asLong(), starts.get(0).get("tid").asLong());
        assertEquals(launch.get("ts").asDouble(), starts.get(0).get("ts").asDouble(), 0);
        assertEquals(kernel.get("pid").asLong(), ends.get(0).get("pid").asLong());
        assertEquals(kernel.get("tid").asLong(), ends.get(0).get("tid").asLong());
        assertEquals(kernel.get("ts").asDouble(), ends.get(0).get("ts").asDouble(), 0);
        assertEquals("e", ends.get(0).get("bp").asText());
        assertTrue(events("X", "add_kernel").get(0).get("args").path("correlation").isMissingNode());
    }

    @Test
    public void gcPausesHaveTheirOwnRowAndForwardBackwardPairsAreLinked() throws IOException {
        export();
        JsonNode gc = events("X", "GC: G1 Young Generation (G1 Evacuation Pause)").get(0);
        assertEquals("gc", gc.get("cat").asText());
        assertEquals(4242, gc.get("pid").asLong());
        assertEquals(0, gc.get("tid").asLong());
        assertEquals("GC (JVM pauses)", metadata("thread_name", 4242, 0).get("name").asText());

        // every forward op with a sequence number starts a flow keyed by (thread, sequence number); of the
        // backward events of a pair only the outer one, the engine's frame, ends it
        List<JsonNode> starts = events("s", "fwdbwd");
        List<JsonNode> ends = events("f", "fwdbwd");
        assertEquals(2, starts.size());
        assertEquals(1, ends.size());
        JsonNode start = starts.get(0);
        JsonNode end = ends.get(0);
        assertEquals("fwdbwd", start.get("cat").asText());
        assertEquals((1L << 32) + 5, start.get("id").asLong());
        assertEquals(start.get("id").asLong(), end.get("id").asLong());
        assertEquals((1L << 32) + 6, starts.get(1).get("id").asLong());
        assertEquals(events("X", "autograd::engine::evaluate_function: MmBackward0").get(0).get("ts").asDouble(),
                end.get("ts").asDouble(), 0);
        assertEquals(1, start.get("tid").asLong());
        assertEquals(9, end.get("tid").asLong());
        assertEquals("e", end.get("bp").asText());
        JsonNode mm = events("X", "aten::mm").get(0);
        assertEquals(mm.get("ts").asDouble(), start.get("ts").asDouble(), 0);

        JsonNode span = events("X", "PyTorch Profiler (0)").get(0);
        assertEquals("Trace", span.get("cat").asText());
        assertEquals("Spans", span.get("pid").asText());
        JsonNode all = root.get("traceEvents");
        assertEquals("Record Window End", all.get(all.size() - 1).get("name").asText());
    }
}
