package dev.vantage.exporter.parquet.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.vantage.exporter.parquet.fleet.Fleet;
import dev.vantage.exporter.parquet.fleet.FleetTrace;

/**
 * The fleet written as Chrome traces next to its Parquet: the JSON, read back with Jackson's parser, holds the
 * events the Parquet tables hold, each kernel has the launch that HTA joins it to, and the collective's kernel has a
 * name HTA counts as communication.
 */
public class FleetChromeTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** What one rank's Chrome trace holds. */
    private static final class Rank {
        int rank = -1;
        long events;
        long kernels;
        long communication;
        final Set<Long> kernelCorrelations = new HashSet<>();
        final Set<Long> launchCorrelations = new HashSet<>();
    }

    @Test
    public void chromeTracesHoldTheParquetEventsWithTheLaunchOfEveryKernel() throws Exception {
        Path dir = tmp.newFolder("fleet").toPath();
        long written = Fleet.write(dir, "fleet-3", 3, 3, 3_000, 1, List.of("parquet", "chrome"));
        long chromeEvents = 0;
        for (int r = 0; r < 3; r++) {
            Rank rank = read(dir.resolve("fleet-3-rank" + r + ".trace.json.gz"));
            assertEquals("distributedInfo's rank", r, rank.rank);
            chromeEvents += rank.events;
            String folder = DuckDb.literal(dir.resolve("fleet-3-rank" + r + "_parquet/kernels.parquet"));
            assertEquals(DuckDb.count("SELECT count(*) FROM read_parquet(" + folder + ")"), rank.kernels);
            assertEquals(DuckDb.count("SELECT count(*) FROM read_parquet(" + folder + ") WHERE communication"),
                    rank.communication);
            assertTrue("some collectives", rank.communication > 0);
            assertEquals(rank.kernels, rank.kernelCorrelations.size());
            assertEquals("a launch for every kernel", rank.kernelCorrelations, rank.launchCorrelations);
        }
        assertEquals(written, chromeEvents);
        long rows = 0;
        for (String table : List.of("events", "kernels", "memory")) {
            rows += DuckDb.count("SELECT count(*) FROM read_parquet("
                    + DuckDb.literal(dir.resolve("*_parquet/" + table + ".parquet")) + ")");
        }
        assertEquals(written, rows);
    }

    @Test
    public void withoutChromeTheFleetHasNoLaunches() throws Exception {
        Path dir = tmp.newFolder("fleet").toPath();
        long written = Fleet.write(dir, "fleet-2", 2, 3, 2_000, -1);
        int ops = FleetTrace.opsPerStepFor(2_000, 3);
        assertEquals(2 * new FleetTrace("fleet-2", 0, 2, 3, ops, -1).eventCount(), written);
        String events = DuckDb.literal(dir.resolve("fleet-2-rank0_parquet/events.parquet"));
        assertEquals(0, DuckDb.count("SELECT count(*) FROM read_parquet(" + events + ") WHERE name = '"
                + FleetTrace.LAUNCH + "'"));
    }

    /** Counts the trace's events: complete events but the {@code Trace} span, and memory instants. */
    private static Rank read(Path file) throws IOException {
        Rank rank = new Rank();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file));
                JsonParser p = new JsonFactory().createParser(in)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (field.equals("distributedInfo")) {
                    rank.rank = ((Number) readObject(p).get("rank")).intValue();
                } else if (field.equals("traceEvents")) {
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        count(rank, readObject(p));
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        return rank;
    }

    private static void count(Rank rank, Map<String, Object> e) {
        String ph = (String) e.get("ph");
        String cat = String.valueOf(e.get("cat"));
        if (ph.equals("X") && !cat.equals("Trace") || ph.equals("i") && cat.equals("cpu_instant_event")) {
            rank.events++;
        }
        if (!ph.equals("X")) {
            return;
        }
        Object correlation = e.get("args.correlation");
        if (cat.equals("kernel")) {
            rank.kernels++;
            rank.kernelCorrelations.add(((Number) correlation).longValue());
            if (String.valueOf(e.get("name")).startsWith("nccl")) {
                rank.communication++;
            }
        } else if (cat.equals("privateuse1_runtime")) {
            rank.launchCorrelations.add(((Number) correlation).longValue());
        }
    }

    /** Reads an object's scalar fields, and those of its nested objects as {@code outer.inner}. */
    private static Map<String, Object> readObject(JsonParser p) throws IOException {
        Map<String, Object> fields = new HashMap<>();
        readInto(p, "", fields);
        return fields;
    }

    private static void readInto(JsonParser p, String prefix, Map<String, Object> fields) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = prefix + p.currentName();
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_OBJECT) {
                readInto(p, name + ".", fields);
            } else if (t == JsonToken.START_ARRAY) {
                p.skipChildren();
            } else if (t.isNumeric()) {
                fields.put(name, p.getNumberValue());
            } else {
                fields.put(name, p.getText());
            }
        }
    }
}
