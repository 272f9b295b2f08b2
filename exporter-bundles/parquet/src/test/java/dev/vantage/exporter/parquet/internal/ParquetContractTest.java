package dev.vantage.exporter.parquet.internal;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

import dev.vantage.exporter.contract.TraceExporterContract;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * The exporter contract for {@code parquet}: DuckDB reads the four files back; every event of the trace is one row
 * of {@code events}, {@code kernels} or {@code memory}, and every row names its run and rank.
 */
public class ParquetContractTest extends TraceExporterContract {

    @Override
    protected TraceExporter exporter() {
        return new ParquetTraceExporter();
    }

    @Override
    protected long readBack(Path target) throws IOException {
        try {
            long rows = 0;
            for (String table : List.of(TraceTables.EVENTS, TraceTables.KERNELS, TraceTables.MEMORY)) {
                String file = DuckDb.literal(target.resolve(table));
                List<Map<String, Object>> r = DuckDb.query("SELECT count(*) AS n, count(DISTINCT run_id) AS runs,"
                        + " count(*) FILTER (WHERE run_id IS NULL OR rank IS NULL OR world_size IS NULL) AS missing"
                        + " FROM read_parquet(" + file + ")");
                long n = ((Number) r.get(0).get("n")).longValue();
                assertEquals(table, 0L, ((Number) r.get(0).get("missing")).longValue());
                assertEquals(table, n == 0 ? 0L : 1L, ((Number) r.get(0).get("runs")).longValue());
                rows += n;
            }
            DuckDb.count("SELECT count(*) FROM read_parquet(" + DuckDb.literal(target.resolve(TraceTables.STEPS))
                    + ")");
            return rows;
        } catch (SQLException e) {
            throw new IOException("DuckDB could not read " + target + ": " + e.getMessage(), e);
        }
    }
}
