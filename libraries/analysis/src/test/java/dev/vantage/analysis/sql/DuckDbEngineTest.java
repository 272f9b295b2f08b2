package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.parquet.fleet.Fleet;

/**
 * A result of millions of rows comes back whole and in order through its file, from a DuckDB streaming its rows
 * (the driver held a materialized result in native memory, outside the heap and DuckDB's limit).
 */
public class DuckDbEngineTest {

    @ClassRule
    public static TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aResultOfMillionsOfRowsComesBackWholeAndInOrder() throws Exception {
        Path dir = tmp.newFolder("fleet").toPath();
        Fleet.write(dir, "small", 2, 2, 200, -1);
        // 3 M rows of four BIGINTs: 96 MB of values, three times DuckDB's limit
        long n = 3_000_000;
        Query wide = new Query("wide", "SELECT range AS a, range * 2 AS b, range * 3 AS c, range * 4 AS d"
                + " FROM range(" + n + ") ORDER BY a");
        try (DuckDbEngine db = DuckDbEngine.open(TraceFolders.find(dir), "32MB")) {
            ResultTable t = db.run(wide);
            assertEquals(n, t.rows().size());
            assertTrue("the rows went to a file", t.rows() instanceof SpilledRows);
            assertEquals(List.of(0L, 0L, 0L, 0L), t.rows().get(0));
            long last = n - 1;
            assertEquals(List.of(last, 2 * last, 3 * last, 4 * last), t.rows().get((int) last));
        }
    }
}
