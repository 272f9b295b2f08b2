package dev.vantage.exporter.tensorboard.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/** Run directories read back as TensorBoard does: file names by the plugin's pattern, records by their CRCs. */
public class TensorBoardWriterTest {

    /** The TensorBoard plugin's worker file pattern (torch_tb_profiler consts.py). */
    private static final Pattern WORKER = Pattern.compile("^(.*?)(\\.\\d+)?\\.pt\\.trace\\.json(?:\\.gz)?$");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static FakeTrace trace() {
        return new FakeTrace(List.of(
                Ev.host("ProfilerStep#2", EventKind.USER_ANNOTATION, 1, 0, 10_000_000, 1),
                Ev.host("ProfilerStep#3", EventKind.USER_ANNOTATION, 1, 10_000_000, 5_000_000, 2),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 1_000_000, 4_000_000, 10).under(1, 3_000_000),
                Ev.host("aten::add", EventKind.CPU_OP, 1, 2_000_000, 1_000_000, 11).under(10, 1_000_000),
                Ev.memory(1, 2_500_000, 20, 3 << 20, 0x10, 11),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 11_000_000, 2_000_000, 12).under(2, 2_000_000),
                Ev.kernel("mm_kernel", "npu", 0, 3, 2_500_000, 1_500_000, 30, 10),
                Ev.kernel("hcom_allReduce__7_0_1", "npu", 0, 4, 5_000_000, 2_000_000, 31, 10)),
                List.of(new TraceThread(1, "main", 0)), List.of(new TraceDevice("npu", 0, true, Map.of())), Map.of());
    }

    /** Reads every TFRecord, checking both masked CRCs of each. */
    static List<byte[]> records(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        List<byte[]> records = new ArrayList<>();
        while (b.hasRemaining()) {
            byte[] length = new byte[8];
            b.get(length);
            assertEquals("length CRC", masked(length), b.getInt());
            byte[] data = new byte[(int) ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getLong()];
            b.get(data);
            assertEquals("data CRC", masked(data), b.getInt());
            records.add(data);
        }
        return records;
    }

    private static int masked(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length);
        long c = crc.getValue();
        return (int) ((((c >>> 15) | (c << 17)) + 0xa282ead8L) & 0xffffffffL);
    }

    /** Decodes an Event on the wire: step and the first summary value's tag and float, or the file version. */
    static Map<String, Object> decode(byte[] event) throws IOException {
        Map<String, Object> fields = new TreeMap<>();
        CodedInputStream in = CodedInputStream.newInstance(event);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> fields.put("wall_time", in.readDouble());
                case 2 -> fields.put("step", in.readInt64());
                case 3 -> fields.put("file_version", in.readString());
                case 5 -> {
                    CodedInputStream summary = CodedInputStream.newInstance(in.readByteArray());
                    assertEquals(1, WireFormat.getTagFieldNumber(summary.readTag()));
                    CodedInputStream value = CodedInputStream.newInstance(summary.readByteArray());
                    for (int t = value.readTag(); t != 0; t = value.readTag()) {
                        if (WireFormat.getTagFieldNumber(t) == 1) {
                            fields.put("tag", value.readString());
                        } else {
                            fields.put("value", value.readFloat());
                        }
                    }
                }
                default -> in.skipField(tag);
            }
        }
        return fields;
    }

    @Test
    public void writesATraceTheTensorBoardPluginFindsAndScalarsTensorBoardReads() throws IOException {
        Path run = tmp.getRoot().toPath().resolve("run1");
        List<Path> traces = new ArrayList<>();
        Path trace = new TensorBoardWriter((t, file) -> {
            Files.writeString(file, "{}");
            traces.add(file);
        }, "host_42", "myhost", true).write(trace(), run);
        assertEquals(List.of(trace), traces);
        Matcher m = WORKER.matcher(trace.getFileName().toString());
        assertTrue(trace.toString(), m.matches());
        assertEquals("host_42", m.group(1));
        assertTrue("nanosecond timestamp", m.group(2).length() >= 19);
        assertTrue(trace.toString(), trace.toString().endsWith(".pt.trace.json.gz"));

        List<Path> events;
        try (Stream<Path> s = Files.list(run)) {
            events = s.filter(p -> p.getFileName().toString().startsWith("events.out.tfevents."))
                    .collect(Collectors.toList());
        }
        assertEquals(1, events.size());
        assertTrue(events.get(0).getFileName().toString().matches("events\\.out\\.tfevents\\.\\d+\\.myhost\\.\\d+"));
        List<byte[]> records = records(events.get(0));
        assertEquals("brain.Event:2", decode(records.get(0)).get("file_version"));
        Map<String, Float> scalars = new TreeMap<>();
        for (byte[] r : records.subList(1, records.size())) {
            Map<String, Object> e = decode(r);
            scalars.put(e.get("step") + " " + e.get("tag"), (Float) e.get("value"));
        }
        assertEquals(10f, scalars.get("2 step_time_ms"), 1e-6);
        assertEquals(5f, scalars.get("3 step_time_ms"), 1e-6);
        assertEquals(4f, scalars.get("2 cpu_op_time_ms"), 1e-6);
        assertEquals(2f, scalars.get("3 cpu_op_time_ms"), 1e-6);
        assertEquals(3.5f, scalars.get("2 device_time_ms/npu:0"), 1e-6);
        // the HCCL kernel is this rank's communication; the matmul kernel is not
        assertEquals(2f, scalars.get("2 communication_time_ms/npu:0"), 1e-6);
        // the fake allocator's total after the event is 8192 + 3 MiB
        assertEquals((8192 + (3 << 20)) / (1024f * 1024f), scalars.get("2 peak_memory_mb/cpu"), 1e-6);
        assertEquals(null, scalars.get("3 device_time_ms/npu:0"));
    }

    @Test
    public void aSecondCycleInTheSameSecondGetsItsOwnEventFile() throws IOException {
        Path run = tmp.getRoot().toPath().resolve("run2");
        TensorBoardWriter writer = new TensorBoardWriter((t, file) -> Files.writeString(file, "{}"), "w", "h",
                false);
        Path first = writer.write(trace(), run);
        Path second = writer.write(trace(), run);
        assertTrue(!first.equals(second) && first.toString().endsWith(".pt.trace.json"));
        try (Stream<Path> s = Files.list(run)) {
            assertEquals(2, s.filter(p -> p.getFileName().toString().startsWith("events.out.tfevents.")).count());
        }
    }

    @Test
    public void aFailedWriteLeavesNoEmptyRunDirectoryButKeepsOneThatWasThere() throws IOException {
        Path run = tmp.getRoot().toPath().resolve("full");
        TensorBoardWriter full = new TensorBoardWriter((t, file) -> {
            throw new IOException("No space left on device");
        }, "w", "h", true);
        try {
            full.write(trace(), run);
            throw new AssertionError("the write did not fail");
        } catch (IOException expected) {
            assertEquals("No space left on device", expected.getMessage());
        }
        assertTrue("no empty run directory", !Files.exists(run));
        // a run directory that held an earlier run stays, with that run's files
        Path earlier = new TensorBoardWriter((t, file) -> Files.writeString(file, "{}"), "w", "h", true)
                .write(trace(), run);
        try {
            full.write(trace(), run);
        } catch (IOException expected) {
            // as above
        }
        assertTrue(Files.exists(earlier));
    }
}
