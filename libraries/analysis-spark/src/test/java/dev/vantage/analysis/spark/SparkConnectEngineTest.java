package dev.vantage.analysis.spark;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.analysis.Tools;
import dev.vantage.analysis.sql.DuckDbEngine;
import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.SparkConnect;
import dev.vantage.analysis.sql.SqlEngine;
import dev.vantage.analysis.sql.TraceFolders;
import dev.vantage.trace.engine.read.KinetoVariants;
import dev.vantage.trace.engine.read.KinetoVariants.Variant;

/**
 * A two-rank PyTorch job, converted with {@code vantage convert}, analysed on DuckDB and on a local Spark Connect
 * server (Apache Spark with its Connect plugin, from Maven Central, started in a JVM of its own on a free loopback
 * port): every analysis gives the same rows in the same order. The engine is loaded as the distribution loads it,
 * from its own jar directory in a class loader of its own ({@link SparkConnect}).
 */
public class SparkConnectEngineTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    private static Process server;
    private static int port;
    private static Path parquet;
    private static Path log;

    @BeforeClass
    public static void convertAJobAndStartAServer() throws Exception {
        Path job = tmp.newFolder("ddp-job").toPath();
        KinetoVariants.write(job.resolve("rank-0.json.gz"), Variant.MODERN, 0);
        KinetoVariants.write(job.resolve("rank-1.json"), Variant.CORRELATION_2022, 1);
        parquet = tmp.getRoot().toPath().resolve("parquet");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Tools.run(List.of("convert", job.toString(), "-o", parquet.toString()), Map.of(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(err.toString(StandardCharsets.UTF_8), 0, code);

        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String classpath = Files.readString(Path.of(System.getProperty("spark.server.classpath"))).strip();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx1g"));
        for (String p : new String[] {"java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net",
            "java.nio", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "sun.nio.ch", "sun.nio.cs",
            "sun.security.action", "sun.util.calendar"}) {
            command.add("--add-opens=java.base/" + p + "=ALL-UNNAMED");
        }
        command.addAll(List.of("-Dspark.master=local[2]", "-Dspark.app.name=vantage-connect-test",
                "-Dspark.ui.enabled=false", "-Dspark.driver.host=127.0.0.1", "-Dspark.driver.bindAddress=127.0.0.1",
                "-Dspark.connect.grpc.binding.address=127.0.0.1", "-Dspark.connect.grpc.binding.port=" + port,
                "-Dspark.sql.shuffle.partitions=4", "-Dspark.sql.session.timeZone=UTC",
                "-Dspark.sql.warehouse.dir=" + tmp.newFolder("warehouse").toURI(),
                "-cp", classpath, "org.apache.spark.sql.connect.service.SparkConnectServer"));
        log = tmp.getRoot().toPath().resolve("server.log");
        server = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        while (!listening(port)) {
            if (!server.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("the Spark Connect server did not start:\n" + tail());
            }
            Thread.sleep(250);
        }
    }

    private static boolean listening(int p) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", p), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String tail() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    @AfterClass
    public static void stopServer() throws Exception {
        if (server != null) {
            server.destroy();
            if (!server.waitFor(30, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    public void everyAnalysisGivesTheSameRowsOnSparkConnectAndDuckDb() throws Exception {
        TraceFolders folders = TraceFolders.find(parquet);
        List<ResultTable> duck = new ArrayList<>();
        // DuckDB stays open while the rows are compared: a long result is read back from its file
        try (DuckDbEngine db = DuckDbEngine.open(folders, null);
                SqlEngine spark = SparkConnect.open("sc://127.0.0.1:" + port, folders)) {
            List<Query> queries = Query.all("ProfilerStep");
            for (Query q : queries) {
                duck.add(db.run(q));
            }
            for (int i = 0; i < duck.size(); i++) {
                ResultTable d = duck.get(i);
                ResultTable s = spark.run(queries.get(i));
                assertTrue(d.name() + " returned no row", !d.rows().isEmpty());
                assertEquals(d.name() + ": columns", d.columns(), s.columns());
                assertEquals(d.name() + ": rows", d.rows().size(), s.rows().size());
                for (int r = 0; r < d.rows().size(); r++) {
                    for (int c = 0; c < d.columns().size(); c++) {
                        Object a = d.rows().get(r).get(c);
                        Object b = s.rows().get(r).get(c);
                        String where = d.name() + " row " + r + " " + d.columns().get(c);
                        if (a instanceof Double x && b instanceof Double y) {
                            assertEquals(where, x, y, Math.abs(x) * 1e-12);
                        } else {
                            assertEquals(where, a, b);
                        }
                    }
                }
            }
        }
    }

    @Test
    public void analyzeRunsOnTheEngineFromTheCommandLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Tools.run(List.of("analyze", parquet.toString(), "--engine", "spark", "--remote",
                "sc://127.0.0.1:" + port, "--format", "csv"), Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(err.toString(StandardCharsets.UTF_8), 0, code);
        String csv = out.toString(StandardCharsets.UTF_8);
        assertTrue(csv, csv.contains("# stragglers"));
        assertTrue(csv, csv.contains("ddp-job,1,"));
    }
}
