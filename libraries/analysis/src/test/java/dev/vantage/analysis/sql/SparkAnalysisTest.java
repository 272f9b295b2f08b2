package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.parquet.fleet.Fleet;

/**
 * Every analysis SQL file, unchanged, on Apache Spark (local mode) and on DuckDB over the same Parquet files: a run
 * of 32 ranks with a straggler and a second run of 3 ranks in a sub-folder, written by the real exporter. The rows
 * must be the same, in the same order.
 */
public class SparkAnalysisTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static SparkSession spark;
    private static TraceFolders folders;

    @BeforeClass
    public static void writeFleetAndStartSpark() throws Exception {
        Path dir = tmp.newFolder("fleet").toPath();
        // with Chrome traces beside the Parquet folders, so that every op has its launch call (for launch.sql)
        Fleet.write(dir, "fleet-32", 32, 4, 1_200, 13, List.of("parquet", "chrome"));
        Fleet.write(dir.resolve("older"), "fleet-3", 3, 3, 400, -1);
        // and a real PyTorch job (HTA's two ranks of a training run), whose copies and fills memory_bw.sql reads
        Path hta = tmp.newFolder("hta").toPath();
        for (String rank : List.of("sampled_rank-0.json.gz", "sampled_rank-1.json.gz")) {
            try (java.io.InputStream in = SparkAnalysisTest.class.getResourceAsStream(
                    "/dev/vantage/trace/engine/device/hta/trace_filter/" + rank)) {
                java.nio.file.Files.copy(in, hta.resolve(rank));
            }
        }
        dev.vantage.analysis.VerbRun converted = dev.vantage.analysis.VerbRun.verb("convert", hta.toString(), "-o",
                dir.resolve("pytorch").toString());
        assertEquals(converted.err(), 0, converted.code());
        folders = TraceFolders.find(dir);
        spark = SparkSession.builder().master("local[2]").appName("vantage-analysis-test")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.shuffle.partitions", "4")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.warehouse.dir", tmp.newFolder("warehouse").toURI().toString())
                .getOrCreate();
        spark.sparkContext().setLogLevel("ERROR");
        for (String table : Query.TABLES) {
            String[] files = folders.files().get(table).stream().map(Path::toString).toArray(String[]::new);
            spark.read().parquet(files).createOrReplaceTempView(table);
        }
    }

    @AfterClass
    public static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static ResultTable onSpark(Query a) {
        Dataset<Row> result = spark.sql(a.sql(Query.Dialect.SPARK));
        List<String> columns = List.of(result.columns());
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : result.collectAsList()) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < row.size(); i++) {
                values.add(ResultTable.plain(row.get(i)));
            }
            rows.add(values);
        }
        return new ResultTable(a.name(), columns, rows);
    }

    @Test
    public void everyAnalysisGivesTheSameRowsOnSparkAndDuckDb() throws Exception {
        List<ResultTable> duck = new ArrayList<>();
        try (DuckDbEngine db = DuckDbEngine.open(folders, null)) {
            db.heldRows = 1000;
            List<Query> queries = Query.all("ProfilerStep");
            for (Query a : queries) {
                duck.add(db.run(a));
            }
            // compared while DuckDB is open: the launches (9,312 rows, over 1,000) are read back from their file
            for (int i = 0; i < duck.size(); i++) {
                ResultTable d = duck.get(i);
                assertTrue(d.name() + " returned no row", !d.rows().isEmpty());
                Rows.assertSameRows(d.name(), d, onSpark(queries.get(i)));
            }
            ResultTable launch = duck.stream().filter(t -> t.name().equals("launch")).findFirst().orElseThrow();
            assertTrue(launch.rows().size() + " rows", launch.rows() instanceof SpilledRows);
        }
        ResultTable stragglers = duck.get(Query.NAMES.indexOf("stragglers"));
        List<Object> slowest = stragglers.rows().stream()
                .filter(r -> r.get(stragglers.column("job_id")).equals("fleet-32")).findFirst().orElseThrow();
        assertEquals("the straggler leads its run", 13L, slowest.get(stragglers.column("rank")));
        assertEquals(true, slowest.get(stragglers.column("straggler")));
        assertEquals("32 + 3 + 2 ranks", 37, stragglers.rows().size());
    }
}
