package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.Test;

/**
 * The loading of the analysis SQL: the exporter version a folder needs for the columns a query reads, the {@code
 * sequences} query that exists only with an operator, and the one place the two dialects are spelled apart.
 */
public class QueryTest {

    /**
     * The version that first wrote a set of columns is the latest of theirs by number: an exporter-parquet 0.10.0
     * column is newer than a 0.4.0 one (as text, "0.10.0" sorts first).
     */
    @Test
    public void theNewestExporterVersionIsTheLargestNumberNotTheLastText() {
        Map<String, String> since = Map.of("events.flow_id", "0.3.0", "kernels.blocks_per_sm", "0.4.0",
                "events.depth", "0.10.0");
        assertEquals("0.10.0", Query.writtenSince(List.of("kernels.blocks_per_sm", "events.depth"), since));
        assertEquals("0.10.0", Query.writtenSince(List.of("events.depth", "events.flow_id"), since));
        assertEquals("0.4.0", Query.writtenSince(List.of("events.flow_id", "kernels.blocks_per_sm"), since));
        assertEquals("0.4.0", Query.writtenSince(List.of("kernels.blocks_per_sm", "kernels.est_achieved_occupancy_pct")));
    }

    /** Without an operator there is no sequences query; with one it reads the work's columns and names the operator. */
    @Test
    public void sequencesComesOnlyWithAnOperator() {
        assertFalse(Query.all().stream().anyMatch(q -> q.name().equals("sequences")));
        Query sequences = Query.all("aten::mm").stream().filter(q -> q.name().equals("sequences")).findFirst()
                .orElseThrow();
        assertTrue(sequences.requires().contains("events.flow_id"));
        for (Query.Dialect d : Query.Dialect.values()) {
            String sql = sequences.sql(d);
            assertFalse(d + ": " + sql, sql.contains("${"));
            assertTrue(sql.contains("instr(e.name, 'aten::mm') > 0"));
        }
        assertTrue(sequences.sql(Query.Dialect.DUCKDB).contains("string_agg("));
        assertTrue(sequences.sql(Query.Dialect.SPARK).contains("array_join("));
    }

    /** An operator that the SQL's string literal would take for its own end or escape is refused. */
    @Test(expected = IllegalArgumentException.class)
    public void anOperatorWithAQuoteIsRefused() {
        Query.all("it's");
    }
}
