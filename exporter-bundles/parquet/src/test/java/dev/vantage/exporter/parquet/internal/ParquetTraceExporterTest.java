package dev.vantage.exporter.parquet.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.contract.FakeTrace;
import dev.vantage.exporter.contract.FakeTrace.Ev;
import dev.vantage.exporter.parquet.fleet.Fleet;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * Writes real Parquet files and reads them back with DuckDB (not parquet-java): the values of every table, the run
 * id and its fallback, and the columns against docs/parquet-schema.md. Surefire runs this module without Hadoop on
 * the class path (see the pom), so these tests also show the writer needs none.
 */
public class ParquetTraceExporterTest {

    private static final long T0 = FakeTrace.START;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static FakeTrace training(Map<String, String> metadata) {
        return new FakeTrace(List.of(
                Ev.host("ProfilerStep#7", EventKind.USER_ANNOTATION, 1, 0, 50_000, 1),
                Ev.host("aten::mm", EventKind.CPU_OP, 1, 1_000, 20_000, 2).under(1, 15_000).withSequence(3, -1),
                Ev.memory(1, 2_000, 3, 4096, 0x40, 2),
                Ev.host("record_param_comms", EventKind.CPU_OP, 1, 30_000, 5_000, 4).under(1, 5_000),
                Ev.host("GC: G1 Young Generation", EventKind.GC, -1, 60_000, 1_000, 6),
                Ev.kernel("mm_kernel", "npu", 0, 3, 5_000, 10_000, 7, 2).withFlow(11),
                Ev.kernel("hcom_allReduce__1_1", "npu", 0, 9, 31_000, 30_000, 8, 4)),
                List.of(new TraceThread(1, "main", 0)),
                List.of(new TraceDevice("npu", 0, true, Map.of("name", "Test NPU"))), metadata);
    }

    private Path export(FakeTrace trace, String name) throws Exception {
        ParquetTraceExporter exporter = new ParquetTraceExporter();
        Path target = exporter.defaultTarget(tmp.getRoot().toPath(), name);
        exporter.export(trace, target);
        return target;
    }

    private static List<Map<String, Object>> rows(Path folder, String file, String columns, String order)
            throws Exception {
        return DuckDb.query("SELECT " + columns + " FROM read_parquet(" + DuckDb.literal(folder.resolve(file))
                + ") ORDER BY " + order);
    }

    @Test
    public void writesFourTablesEachRowWithRunRankAndStep() throws Exception {
        Path out = export(training(Map.of("vantage.run_id", "run-42", "vantage.job_id", "job-7", "rank", "3",
                "world_size", "8")),
                "train-rank3");
        assertEquals("train-rank3_parquet", out.getFileName().toString());

        List<Map<String, Object>> events = rows(out, TraceTables.EVENTS,
                "job_id, run_id, rank, world_size, name, kind, thread_name, start_ns - " + T0 + " AS t, end_ns - " + T0
                        + " AS e, self_ns, step, parent_id, sequence_number, correlation_id", "start_ns");
        assertEquals(4, events.size());
        Map<String, Object> mm = events.get(1);
        assertEquals("run-42", mm.get("run_id"));
        assertEquals("job-7", mm.get("job_id"));
        assertEquals(3, mm.get("rank"));
        assertEquals(8, mm.get("world_size"));
        assertEquals("aten::mm", mm.get("name"));
        assertEquals("cpu_op", mm.get("kind"));
        assertEquals("main", mm.get("thread_name"));
        assertEquals(1_000L, ((Number) mm.get("t")).longValue());
        assertEquals(21_000L, ((Number) mm.get("e")).longValue());
        assertEquals(15_000L, mm.get("self_ns"));
        assertEquals(7L, mm.get("step"));
        assertEquals(1L, mm.get("parent_id"));
        assertEquals(3L, mm.get("sequence_number"));
        assertEquals(2L, mm.get("correlation_id"));
        Map<String, Object> gc = events.get(3);
        assertEquals("gc", gc.get("kind"));
        assertEquals("outside the step's 50 us", null, gc.get("step"));
        assertEquals(null, gc.get("thread_name"));
        assertEquals(null, events.get(0).get("parent_id"));

        List<Map<String, Object>> kernels = rows(out, TraceTables.KERNELS, "name, stream_id, device_type,"
                + " device_index, start_ns - " + T0 + " AS t, duration_ns, correlation_id, flow_id, communication,"
                + " step, rank", "start_ns");
        assertEquals(2, kernels.size());
        assertEquals("mm_kernel", kernels.get(0).get("name"));
        assertEquals(3L, kernels.get(0).get("stream_id"));
        assertEquals("npu", kernels.get(0).get("device_type"));
        assertEquals(0, kernels.get(0).get("device_index"));
        assertEquals(5_000L, ((Number) kernels.get(0).get("t")).longValue());
        assertEquals(10_000L, kernels.get(0).get("duration_ns"));
        assertEquals(2L, kernels.get(0).get("correlation_id"));
        assertEquals(11L, kernels.get(0).get("flow_id"));
        assertEquals(false, kernels.get(0).get("communication"));
        assertEquals(true, kernels.get(1).get("communication"));
        assertEquals(null, kernels.get(1).get("flow_id"));
        assertEquals(7L, kernels.get(1).get("step"));

        List<Map<String, Object>> memory = rows(out, TraceTables.MEMORY, "bytes, address, op_id, step, device_type,"
                + " out_of_memory, time_ns - " + T0 + " AS t", "time_ns");
        assertEquals(1, memory.size());
        assertEquals(4096L, memory.get(0).get("bytes"));
        assertEquals(0x40L, memory.get(0).get("address"));
        assertEquals(2L, memory.get(0).get("op_id"));
        assertEquals(7L, memory.get(0).get("step"));
        assertEquals("cpu", memory.get(0).get("device_type"));
        assertEquals(false, memory.get(0).get("out_of_memory"));

        List<Map<String, Object>> steps = rows(out, TraceTables.STEPS, "step, start_ns - " + T0 + " AS t,"
                + " duration_ns, span_end_ns - " + T0 + " AS span_end, run_id", "step");
        assertEquals(1, steps.size());
        assertEquals(7L, steps.get(0).get("step"));
        assertEquals(0L, ((Number) steps.get(0).get("t")).longValue());
        assertEquals(50_000L, ((Number) steps.get(0).get("span_end")).longValue());
        // the step's time runs to the end of its last device work (hcom_allReduce: 31 us + 30 us)
        assertEquals(61_000L, steps.get(0).get("duration_ns"));
    }

    @Test
    public void withoutRunIdTheRunIsTheProfileNameAndStartTimeAndItsOwnJob() throws Exception {
        Path out = export(training(Map.of("rank", "2", "world_size", "4")), "train-rank2");
        List<Map<String, Object>> r = rows(out, TraceTables.STEPS, "job_id, run_id, rank, world_size", "step");
        assertEquals("train@2025-11-21T04:40:00.123456789Z", r.get(0).get("run_id"));
        assertEquals("a process on its own is its own job", "train@2025-11-21T04:40:00.123456789Z",
                r.get(0).get("job_id"));
        assertEquals(2, r.get(0).get("rank"));
        assertEquals(4, r.get(0).get("world_size"));
    }

    @Test
    public void aTraceWithoutRankIsRankZeroOfOne() throws Exception {
        Path out = export(training(Map.of("rank", "not a number")), "solo");
        List<Map<String, Object>> r = rows(out, TraceTables.EVENTS, "DISTINCT run_id, rank, world_size", "rank");
        assertEquals(1, r.size());
        assertEquals("solo@2025-11-21T04:40:00.123456789Z", r.get(0).get("run_id"));
        assertEquals(0, r.get(0).get("rank"));
        assertEquals(1, r.get(0).get("world_size"));
    }

    @Test
    public void manyRanksReadAsOneTableThroughAGlob() throws Exception {
        Path dir = tmp.newFolder("fleet").toPath();
        long written = Fleet.write(dir, "fleet-1", 6, 3, 2_000, 4);
        String folders = dir.resolve("*_parquet").toString().replace("'", "''");
        long rows = 0;
        for (String table : List.of("events", "kernels", "memory")) {
            rows += DuckDb.count("SELECT count(*) FROM read_parquet('" + folders + "/" + table + ".parquet')");
        }
        assertEquals(written, rows);
        List<Map<String, Object>> perRank = DuckDb.query("SELECT rank, avg(duration_ns) AS step_ns FROM read_parquet('"
                + folders + "/steps.parquet') GROUP BY rank ORDER BY step_ns DESC");
        assertEquals(6, perRank.size());
        assertEquals("the straggler's steps are longest", 4, perRank.get(0).get("rank"));
    }

    @Test
    public void columnsAreTheOnesTheSchemaDocumentLists() throws Exception {
        Path out = export(training(Map.of()), "doc");
        Map<String, List<String>> documented = documentedColumns();
        for (String file : List.of(TraceTables.EVENTS, TraceTables.KERNELS, TraceTables.MEMORY, TraceTables.STEPS)) {
            List<String> actual = new ArrayList<>();
            for (Map<String, Object> col : DuckDb.query("DESCRIBE SELECT * FROM read_parquet("
                    + DuckDb.literal(out.resolve(file)) + ")")) {
                actual.add(col.get("column_name") + " " + duckType(col.get("column_type").toString()));
            }
            assertEquals(file, documented.get(file), actual);
        }
    }

    @Test
    public void aStepAnnotationWhoseNumberIsNoNumberIsNoStep() throws Exception {
        Path out = export(new FakeTrace(List.of(
                Ev.host("ProfilerStep#x1", EventKind.USER_ANNOTATION, 1, 0, 10_000, 1),
                Ev.host("aten::add", EventKind.CPU_OP, 1, 1_000, 1_000, 2).under(1, 1_000)),
                List.of(), List.of(), Map.of()), "odd");
        assertEquals(0L, DuckDb.count("SELECT count(*) FROM read_parquet("
                + DuckDb.literal(out.resolve(TraceTables.STEPS)) + ")"));
        assertEquals(1L, DuckDb.count("SELECT count(*) FROM read_parquet("
                + DuckDb.literal(out.resolve(TraceTables.EVENTS)) + ") WHERE step IS NULL AND name = 'aten::add'"));
    }

    private static String duckType(String type) {
        return switch (type) {
            case "VARCHAR" -> "STRING";
            case "BIGINT" -> "INT64";
            case "INTEGER" -> "INT32";
            case "BOOLEAN" -> "BOOLEAN";
            case "DOUBLE" -> "DOUBLE";
            default -> throw new AssertionError("a column of type " + type);
        };
    }

    /** The column tables of docs/parquet-schema.md: under each {@code ### <file>}, rows {@code | name | type |}. */
    private static Map<String, List<String>> documentedColumns() throws Exception {
        Path doc = Path.of("..", "..", "docs", "parquet-schema.md");
        assertTrue("missing " + doc.toAbsolutePath(), Files.exists(doc));
        Map<String, List<String>> tables = new LinkedHashMap<>();
        List<String> current = null;
        for (String line : Files.readAllLines(doc)) {
            if (line.startsWith("## ")) {
                current = null; // a section after the tables (e.g. converted traces' sources) lists no columns
            } else if (line.startsWith("### ")) {
                current = new ArrayList<>();
                tables.put(line.substring(4).replace("`", "").strip(), current);
            } else if (current != null && line.startsWith("| `")) {
                String[] cells = line.split("\\|");
                current.add(cells[1].replace("`", "").strip() + " " + cells[2].replace("`", "").strip());
            }
        }
        return tables;
    }
}
