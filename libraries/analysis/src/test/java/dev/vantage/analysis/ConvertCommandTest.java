package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.analysis.sql.DuckDbEngine;
import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.TraceFolders;
import dev.vantage.trace.engine.summary.DeviceOverlap;
import dev.vantage.trace.engine.read.KinetoVariants;
import dev.vantage.trace.engine.read.KinetoVariants.Variant;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;
import dev.vantage.trace.engine.summary.Stragglers;

/**
 * {@code vantage convert} on a two-rank PyTorch job whose ranks were written by different torch generations (the
 * modern linkage and 2022's correlation linkage), then {@code analyze} on DuckDB: the rows are the job's, and they
 * agree with what {@code report} computes from the same traces (steps, stragglers, overlap, idle, operators).
 */
public class ConvertCommandTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Path job;
    private static Path out;
    private static String printed;

    @BeforeClass
    public static void convertAJob() throws Exception {
        job = tmp.newFolder("ddp-job").toPath();
        KinetoVariants.write(job.resolve("rank-0.json.gz"), Variant.MODERN, 0);
        KinetoVariants.write(job.resolve("rank-1.json"), Variant.CORRELATION_2022, 1);
        out = tmp.getRoot().toPath().resolve("parquet");
        VerbRun r = VerbRun.of("convert", job.toString(), "-o", out.toString());
        assertEquals(r.err(), 0, r.code());
        printed = r.out();
    }

    private static List<ResultTable> analyze() throws Exception {
        List<ResultTable> results = new ArrayList<>();
        try (DuckDbEngine db = DuckDbEngine.open(TraceFolders.find(out), null)) {
            for (Query q : Query.all()) {
                results.add(db.run(q));
            }
        }
        return results;
    }

    private static ResultTable table(List<ResultTable> all, String name) {
        return all.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    private static Object cell(ResultTable t, int row, String column) {
        return t.rows().get(row).get(t.column(column));
    }

    @Test
    public void writesOneParquetFolderPerRankOfTheJob() {
        assertTrue(Files.isDirectory(out.resolve("rank-0_parquet")));
        assertTrue(Files.isRegularFile(out.resolve("rank-1_parquet").resolve("kernels.parquet")));
        assertTrue(printed, printed.contains("(job ddp-job, rank 1, kineto)"));
    }

    @Test
    public void analyzeAgreesWithReportOnTheSameTraces() throws Exception {
        List<ResultTable> sql = analyze();
        TraceSummary r0 = TraceReader.summary(job.resolve("rank-0.json.gz"));
        TraceSummary r1 = TraceReader.summary(job.resolve("rank-1.json"));
        List<TraceSummary> ranks = List.of(r0, r1);

        ResultTable steps = table(sql, "step_time");
        assertEquals(4, steps.rows().size());
        for (int row = 0; row < 4; row++) {
            int rank = ((Long) cell(steps, row, "rank")).intValue();
            int step = ((Long) cell(steps, row, "step")).intValue();
            assertEquals("ddp-job", cell(steps, row, "job_id"));
            assertEquals(ranks.get(rank).steps().get(step - 1).durationNanos(), cell(steps, row, "step_ns"));
        }

        ResultTable overlap = table(sql, "overlap");
        ResultTable idle = table(sql, "idle_time");
        for (int rank = 0; rank < 2; rank++) {
            DeviceOverlap o = ranks.get(rank).overlap();
            assertEquals("compute, rank " + rank, o.computeNanos(), cell(overlap, rank, "compute_ns"));
            assertEquals("communication, rank " + rank, o.communicationNanos(), cell(overlap, rank, "comm_ns"));
            assertEquals(o.overlappedNanos(), cell(overlap, rank, "overlapped_ns"));
            assertEquals(o.stepNanos(), cell(idle, rank, "step_ns"));
            assertEquals(o.busyNanos(), cell(idle, rank, "busy_ns"));
            assertEquals("cuda", cell(idle, rank, "device_type"));
        }

        // the same straggler figures: the mean step of each rank over the median of the ranks
        ResultTable stragglers = table(sql, "stragglers");
        double[] means = ranks.stream().mapToDouble(s -> s.steps().stream()
                .mapToLong(x -> x.durationNanos()).average().orElse(0)).toArray();
        double median = Stragglers.median(means);
        for (int row = 0; row < 2; row++) {
            int rank = ((Long) cell(stragglers, row, "rank")).intValue();
            assertEquals(means[rank] / median, (Double) cell(stragglers, row, "vs_median"), 1e-12);
        }

        // operators: analyze's self time per op equals the report's, summed over the ranks
        ResultTable top = table(sql, "top_ops");
        for (List<Object> row : top.rows()) {
            String name = (String) row.get(top.column("name"));
            long self = 0;
            long calls = 0;
            for (TraceSummary s : ranks) {
                for (OpStats o : s.ops()) {
                    if (o.name().equals(name)) {
                        self += o.selfNanos();
                        calls += o.count();
                    }
                }
            }
            assertEquals(name, self, row.get(top.column("total_self_ns")));
            assertEquals(name, calls, row.get(top.column("calls")));
        }
    }

    @Test
    public void reportShowsTheDistributedViewWithAnalyzesNumbers() throws Exception {
        Path page = tmp.getRoot().toPath().resolve("job.html");
        VerbRun r = VerbRun.of("report", job.toString(), "-o", page.toString());
        assertEquals(r.err(), 0, r.code());
        String html = Files.readString(page);
        int from = html.indexOf('>', html.indexOf("id=\"vantage-data\"")) + 1;
        com.fasterxml.jackson.databind.JsonNode data = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(html.substring(from, html.indexOf("</script>", from)));
        assertEquals(2, data.get("ranks").size());
        List<ResultTable> sql = analyze();
        ResultTable overlap = table(sql, "overlap");
        ResultTable idle = table(sql, "idle_time");
        // the page offers the board's Distributed view, its ranks' exposed communication analyze's
        int at = html.indexOf('>', html.indexOf("id=\"" + dev.vantage.board.page.BoardPage.ANSWERS_ELEMENT + "\"")) + 1;
        com.fasterxml.jackson.databind.JsonNode distributed = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(html.substring(at, html.indexOf("</script>", at))).get("/api/runs/trace-0/views/distributed");
        assertTrue("the page draws the view", distributed != null && distributed.has("sections"));
        com.fasterxml.jackson.databind.JsonNode shown = null;
        for (com.fasterxml.jackson.databind.JsonNode section : distributed.get("sections")) {
            if (section.get("id").asText().equals("ranks")) {
                shown = section.get("rows");
            }
        }
        assertEquals(2, shown.size());
        for (int rank = 0; rank < 2; rank++) {
            assertEquals(cell(overlap, rank, "exposed_comm_ns"), shown.get(rank).get(8).asLong());
        }
        for (int rank = 0; rank < 2; rank++) {
            com.fasterxml.jackson.databind.JsonNode o = data.get("traces").get(rank).get("overlap");
            assertEquals(cell(overlap, rank, "compute_ns"), o.get("computeNanos").asLong());
            assertEquals(cell(overlap, rank, "exposed_comm_ns"),
                    o.get("communicationNanos").asLong() - o.get("overlappedNanos").asLong());
            assertEquals(cell(idle, rank, "idle_ns"), o.get("stepNanos").asLong() - o.get("busyNanos").asLong());
            com.fasterxml.jackson.databind.JsonNode c = data.get("traces").get(rank).get("collectives").get(0);
            assertEquals("allreduce", c.get("name").asText());
            assertEquals(4096, c.get("bytes").asLong());
        }
        assertEquals("geometry in the kernel view", "grid [162,1,1] block [128,1,1] regs 64 smem 4096",
                data.get("traces").get(0).get("kernelLaunches").get(0).get("geometry").asText());
    }

    @Test
    public void refusesWhatItCannotConvertBeforeWriting() throws Exception {
        Path empty = tmp.newFolder("empty").toPath();
        VerbRun r = VerbRun.of("convert", empty.toString(), "-o", tmp.getRoot().toPath().resolve("x").toString());
        assertEquals(2, r.code());
        assertTrue(r.err(), r.err().contains("holds no *.json, *.pftrace or their .gz trace"));
        VerbRun missing = VerbRun.of("convert", "/no/such/trace.json", "-o", out.toString());
        assertEquals(2, missing.code());
        VerbRun noOut = VerbRun.of("convert", job.toString());
        assertEquals(2, noOut.code());
        Path cut = tmp.newFolder("cut").toPath().resolve("rank-0.json");
        Files.writeString(cut, "{\"traceEvents\": [{\"ph\": \"X\", ");
        VerbRun damaged = VerbRun.of("convert", cut.toString(), "-o", tmp.getRoot().toPath().resolve("y").toString());
        assertEquals(2, damaged.code());
        assertTrue(damaged.err(), damaged.err().startsWith("vantage: " + cut + " is damaged at byte 29: "));
        assertFalse("a failed conversion leaves no output folder", Files.exists(tmp.getRoot().toPath().resolve("y")));
    }

    @Test
    public void aTraceOfTheSameNameDoesNotReplaceAnEarlierConversion() throws Exception {
        Path a = tmp.newFolder("a").toPath();
        Path b = tmp.newFolder("b").toPath();
        KinetoVariants.write(a.resolve("x.json.gz"), Variant.MODERN, 0);
        KinetoVariants.write(b.resolve("x.json.gz"), Variant.CORRELATION_2022, 1);
        Path o = tmp.getRoot().toPath().resolve("same-name");
        assertEquals(0, VerbRun.of("convert", a.resolve("x.json.gz").toString(), "-o", o.toString()).code());
        byte[] first = Files.readAllBytes(o.resolve("x_parquet").resolve("steps.parquet"));
        VerbRun again = VerbRun.of("convert", b.resolve("x.json.gz").toString(), "-o", o.toString());
        assertEquals(again.err(), 2, again.code());
        assertEquals("vantage: '" + o.resolve("x_parquet") + "' exists (a conversion of x.json.gz or another trace of"
                + " that name); remove it, or convert into another -o\n", again.err());
        assertTrue(java.util.Arrays.equals(first, Files.readAllBytes(o.resolve("x_parquet").resolve("steps.parquet"))));
    }

    @Test
    public void refusesTracesThatClaimOneRankTwiceAndWritesNothing() throws Exception {
        Path job = tmp.newFolder("sixteen").toPath();
        for (int i = 0; i < 16; i++) {
            KinetoVariants.write(job.resolve("run" + i + ".json"), Variant.MODERN, 3);
        }
        Path o = tmp.getRoot().toPath().resolve("sixteen-out");
        VerbRun r = VerbRun.of("convert", job.toString(), "-o", o.toString());
        assertEquals(r.err(), 2, r.code());
        assertTrue(r.err(), r.err().startsWith("vantage: job 'sixteen' holds traces of more than one run: rank 3"
                + " appears 16 times (run0.json, run1.json, run10.json, run11.json, ...)"));
        assertEquals(1, r.err().lines().count());
        assertFalse("nothing written, not even the output folder", Files.exists(o));
    }

    @Test
    public void aProfileFolderOfAnEarlierVersionIsReadWithoutItsMemoryTimelines() throws Exception {
        // earlier versions wrote torch's [times, sizes] beside the trace under the names below
        Path old = tmp.newFolder("earlier-profiles").toPath();
        KinetoVariants.write(old.resolve("m.trace.json.gz"), Variant.MODERN, 0);
        String timeline = "[[1795446458629225,1795446458631521],[[0,941056,0,0,0,0,0,0,0],[0,941056,0,512,0,0,0,0,0]]]";
        Files.writeString(old.resolve("m.memory-timeline.json"), timeline);
        try (java.io.OutputStream gz = new java.util.zip.GZIPOutputStream(
                Files.newOutputStream(old.resolve("m-cycle2.memory-timeline.json.gz")))) {
            gz.write(timeline.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        Files.writeString(old.resolve("m.memory-timeline.html"), "<!DOCTYPE html><html></html>");
        Path o = tmp.getRoot().toPath().resolve("earlier-out");
        VerbRun converted = VerbRun.of("convert", old.toString(), "-o", o.toString());
        assertEquals(converted.err(), 0, converted.code());
        try (java.util.stream.Stream<Path> s = Files.list(o)) {
            assertEquals(List.of("m_parquet"), s.map(p -> p.getFileName().toString()).toList());
        }
        Path page = tmp.getRoot().toPath().resolve("earlier.html");
        VerbRun reported = VerbRun.verb("report", old.toString(), "-o", page.toString());
        assertEquals(reported.err(), 0, reported.code());
        assertTrue(reported.out(), reported.out().contains("(1 trace)"));
    }

    @Test
    public void anOutputUnderAFileIsRefusedBeforeAnyReadEvenForRoot() throws Exception {
        // the read-only folder below cannot be shown to root, who writes anywhere; a file in the way stops everyone
        Path file = tmp.newFile("not-a-folder").toPath();
        VerbRun r = VerbRun.of("convert", job.toString(), "-o", file.resolve("out").toString());
        assertEquals(r.err(), 2, r.code());
        assertEquals("vantage: -o '" + file.resolve("out") + "' cannot be created: " + file + " is not a directory\n",
                r.err());
        assertEquals("nothing was read, so nothing was printed", "", r.out());
    }

    @Test
    public void aDirectoryThatCannotBeWrittenIsRefusedBeforeAnyRead() throws Exception {
        Path locked = tmp.newFolder("locked").toPath();
        Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            org.junit.Assume.assumeFalse("root writes anywhere", Files.isWritable(locked));
            VerbRun r = VerbRun.of("convert", job.toString(), "-o", locked.resolve("out").toString());
            assertEquals(r.err(), 2, r.code());
            assertEquals("vantage: -o '" + locked.resolve("out") + "' cannot be created: " + locked
                    + " cannot be written\n", r.err());
        } finally {
            Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }
}
