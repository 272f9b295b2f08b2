package dev.vantage.exporter.csv.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/** The torch_npu views, read back with Apache Commons CSV and checked against values worked out by hand. */
public class CsvTraceExporterTest {

    private static final String EVIL = "evil, \"name\"";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final CsvTraceExporter exporter = new CsvTraceExporter();

    /** Two steps on thread 1; three kernels in step 2 and one in step 3; memory allocated by the first mm. */
    private static FakeTrace deviceTrace() {
        long[][] shapes = {{8, 16}, {16, 4}};
        String[] types = {"float", "float"};
        return new FakeTrace(List.of(
                Ev.host("ProfilerStep#2", EventKind.USER_ANNOTATION, 1, 0, 10_000, 1),
                Ev.host("ProfilerStep#3", EventKind.USER_ANNOTATION, 1, 10_000, 10_000, 2),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 1_000, 4_000, 10).withShapes(shapes, types)
                        .withStack(List.of("a.B.c(B.java:3)")).under(1, 3_000),
                Ev.memory(1, 1_500, 20, 4096, 0x10, 10),
                Ev.host("aten::add", EventKind.CPU_OP, 1, 2_000, 1_000, 11).under(10, 1_000),
                Ev.memory(1, 2_500, 21, 1024, 0x20, 10),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 11_000, 2_000, 12).withShapes(shapes, types)
                        .withStack(List.of("a.B.c(B.java:3)")).under(2, 2_000),
                Ev.memory(1, 11_500, 22, -4096, 0x10, 12),
                Ev.host(EVIL, EventKind.CPU_OP, 1, 14_000, 500, 13).under(2, 500),
                Ev.kernel("mm_kernel", "npu", 0, 3, 2_500, 1_000, 30, 10),
                Ev.kernel("mm_kernel", "npu", 0, 3, 4_000, 500, 31, 10),
                Ev.kernel("add_kernel", "npu", 0, 1, 3_000, 200, 32, 11),
                Ev.kernel("mm_kernel", "npu", 0, 3, 12_000, 1_000, 33, 12)),
                List.of(new TraceThread(1, "main", 0)),
                List.of(new TraceDevice("npu", 0, true, Map.of())),
                Map.of("profile_memory", "1"));
    }

    private static List<CSVRecord> read(Path file, List<String> expectedHeader) throws IOException {
        try (Reader r = Files.newBufferedReader(file);
                CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build().parse(r)) {
            assertEquals(file.getFileName() + " header", expectedHeader, p.getHeaderNames());
            return p.getRecords();
        }
    }

    private static String us(long nanosAfterStart) {
        long n = FakeTrace.START + nanosAfterStart;
        return (n / 1000) + "." + String.format("%03d", n % 1000);
    }

    @Test
    public void writesEveryViewWithTorchNpusHeaders() throws IOException {
        Path dir = exporter.defaultTarget(tmp.getRoot().toPath(), "run");
        assertEquals(tmp.getRoot().toPath().resolve("run_csv"), dir);
        exporter.export(deviceTrace(), dir);
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of("kernel_details.csv", "memory_record.csv", "op_statistic.csv",
                    "operator_details.csv", "operator_memory.csv", "step_trace_time.csv"),
                    files.map(f -> f.getFileName().toString()).sorted().collect(Collectors.toList()));
        }
        assertEquals(List.of("Step Id", "Device_id", "Name", "Type", "Accelerator Core", "Start Time(us)",
                "Duration(us)", "Wait Time(us)", "Block Num"), CsvViews.KERNEL_DETAILS);
        read(dir.resolve("operator_details.csv"), List.of("Name", "Input Shapes", "Call Stack",
                "Host Self Duration(us)", "Host Total Duration(us)", "Device Self Duration(us)",
                "Device Total Duration(us)", "Device Self Duration With AICore(us)",
                "Device Total Duration With AICore(us)"));
        read(dir.resolve("op_statistic.csv"), List.of("OP Type", "Core Type", "Count", "Total Time(us)",
                "Min Time(us)", "Avg Time(us)", "Max Time(us)", "Ratio(%)"));
        read(dir.resolve("step_trace_time.csv"), List.of("Device_id", "Step", "Computing",
                "Communication(Not Overlapped)", "Overlapped", "Communication", "Free", "Stage", "Bubble",
                "Communication(Not Overlapped and Exclude Receive)", "Preparing"));
        read(dir.resolve("memory_record.csv"), List.of("Component", "Timestamp(us)", "Total Allocated(MB)",
                "Total Reserved(MB)", "Total Active(MB)", "Stream Ptr", "Device Type"));
    }

    @Test
    public void kernelDetailsHaveStepsAndWaitTimesPerStream() throws IOException {
        Path dir = tmp.getRoot().toPath().resolve("k");
        exporter.export(deviceTrace(), dir);
        List<CSVRecord> rows = read(dir.resolve("kernel_details.csv"), CsvViews.KERNEL_DETAILS);
        assertEquals(4, rows.size());
        assertEquals(List.of("2", "0", "mm_kernel", "mm_kernel", "", us(2_500), "1.000", "0.000", ""),
                rows.get(0).toList());
        assertEquals("0.500", rows.get(1).get("Wait Time(us)"));
        assertEquals("0.000", rows.get(2).get("Wait Time(us)"));
        assertEquals(List.of("3", "7.500"), List.of(rows.get(3).get("Step Id"), rows.get(3).get("Wait Time(us)")));

        List<CSVRecord> stats = read(dir.resolve("op_statistic.csv"), CsvViews.OP_STATISTIC);
        assertEquals(List.of("mm_kernel", "", "3", "2.500", "0.500", "0.833", "1.000", "92.59"),
                stats.get(0).toList());
        assertEquals(List.of("add_kernel", "", "1", "0.200", "0.200", "0.200", "0.200", "7.41"),
                stats.get(1).toList());
    }

    @Test
    public void stepTimesAndOperatorDetails() throws IOException {
        Path dir = tmp.getRoot().toPath().resolve("s");
        exporter.export(deviceTrace(), dir);
        List<CSVRecord> steps = read(dir.resolve("step_trace_time.csv"), CsvViews.STEP_TRACE_TIME);
        // step 2: kernels [2.5, 3.5], [3.0, 3.2], [4.0, 4.5] us cover 1.5 us of 10; work starts 1 us in
        assertEquals(List.of("0", "2", "1.500", "0.000", "0.000", "0.000", "8.500", "0.000", "0.000", "0.000",
                "1.000"), steps.get(0).toList());
        assertEquals(List.of("0", "3", "1.000", "0.000", "0.000", "0.000", "9.000", "0.000", "0.000", "0.000",
                "1.000"), steps.get(1).toList());

        List<CSVRecord> ops = read(dir.resolve("operator_details.csv"), CsvViews.OPERATOR_DETAILS);
        assertEquals(3, ops.size());
        assertEquals(List.of("aten::mm", "8,16;16,4", "a.B.c(B.java:3)", "5.000", "6.000", "0.000", "0.000", "",
                ""), ops.get(0).toList());
        assertEquals(EVIL, ops.get(2).get("Name"));
        // quoted only where needed: the name with a comma and quotes, not the headers with spaces
        List<String> raw = Files.readAllLines(dir.resolve("operator_details.csv"));
        assertTrue(raw.get(0), raw.get(0).startsWith("Name,Input Shapes,Call Stack,Host Self Duration(us),"));
        assertTrue(raw.get(3), raw.get(3).startsWith("\"evil, \"\"name\"\"\",,,0.500,"));
        assertEquals("0.500", ops.get(2).get("Host Total Duration(us)"));
    }

    @Test
    public void memoryViewsPairAllocationsWithFrees() throws IOException {
        Path dir = tmp.getRoot().toPath().resolve("m");
        exporter.export(deviceTrace(), dir);
        List<CSVRecord> record = read(dir.resolve("memory_record.csv"), CsvViews.MEMORY_RECORD);
        assertEquals(3, record.size());
        // the fake allocator's totals are 8192 + bytes: 12288 B = 0.012 MB
        assertEquals(List.of("PTA", us(1_500), "0.012", "2.000", "0.012", "", "CPU"), record.get(0).toList());
        List<CSVRecord> memory = read(dir.resolve("operator_memory.csv"), CsvViews.OPERATOR_MEMORY);
        assertEquals(2, memory.size());
        CSVRecord freed = memory.get(0);
        assertEquals(List.of("aten::mm", "4.000", us(1_500), us(11_500), us(11_500), "10.000", "10.000"),
                freed.toList().subList(0, 7));
        CSVRecord live = memory.get(1);
        assertEquals(List.of("aten::mm", "1.000", us(2_500), ""), live.toList().subList(0, 4));
    }

    @Test
    public void aCpuOnlyTraceStillHasEveryHeaderAndCpuStepFigures() throws IOException {
        Path dir = tmp.getRoot().toPath().resolve("c");
        exporter.export(new FakeTrace(List.of(
                Ev.host("ProfilerStep#0", EventKind.USER_ANNOTATION, 1, 0, 10_000, 1),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 2_000, 3_000, 2).under(1, 3_000),
                Ev.host("aten::add", EventKind.CPU_OP, 1, 6_000, 1_000, 3).under(1, 1_000)),
                List.of(new TraceThread(1, "main", 0)), List.of(), Map.of()), dir);
        assertEquals(List.of(), read(dir.resolve("kernel_details.csv"), CsvViews.KERNEL_DETAILS));
        assertEquals(List.of(), read(dir.resolve("op_statistic.csv"), CsvViews.OP_STATISTIC));
        assertFalse(Files.exists(dir.resolve("memory_record.csv")));
        List<CSVRecord> steps = read(dir.resolve("step_trace_time.csv"), CsvViews.STEP_TRACE_TIME);
        assertEquals(List.of("cpu", "0", "4.000", "0.000", "0.000", "0.000", "6.000", "0.000", "0.000", "0.000",
                "2.000"), steps.get(0).toList());
    }

    @Test
    public void replacesAnEarlierFolderAndLeavesNoTemporaryOne() throws IOException {
        Path dir = tmp.getRoot().toPath().resolve("again");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("stale.csv"), "old");
        exporter.export(deviceTrace(), dir);
        assertFalse(Files.exists(dir.resolve("stale.csv")));
        List<String> left = new ArrayList<>();
        try (Stream<Path> s = Files.list(tmp.getRoot().toPath())) {
            s.forEach(p -> left.add(p.getFileName().toString()));
        }
        assertEquals(List.of("again"), left);
        assertTrue(Files.exists(dir.resolve("kernel_details.csv")));
    }
}
