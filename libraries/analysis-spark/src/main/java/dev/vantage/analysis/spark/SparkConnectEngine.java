package dev.vantage.analysis.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.connect.Dataset;
import org.apache.spark.sql.connect.SparkSession;

import dev.vantage.analysis.sql.Query;
import dev.vantage.analysis.sql.ResultTable;
import dev.vantage.analysis.sql.SqlEngine;

/**
 * The analysis SQL on a Spark cluster through Spark Connect: the four tables become temporary views over the Parquet
 * files (read by the cluster, at the paths given), and each query's rows come back through the Connect client. The
 * SQL files are the ones DuckDB runs, unchanged (their dialect is the subset both engines share). Loaded by
 * {@code dev.vantage.analysis.sql.SparkConnect} in a class loader of its own; not used directly.
 */
public final class SparkConnectEngine implements SqlEngine {

    private final SparkSession spark;

    private SparkConnectEngine(SparkSession spark) {
        this.spark = spark;
    }

    /**
     * Connects and defines the views.
     *
     * @param remote {@code sc://HOST:PORT}
     * @param tables per table name, the absolute paths of its Parquet files
     */
    public static SqlEngine open(String remote, Map<String, List<String>> tables) {
        SparkSession spark = SparkSession.builder().remote(remote).create();
        try {
            spark.conf().set("spark.sql.session.timeZone", "UTC");
            for (Map.Entry<String, List<String>> t : tables.entrySet()) {
                spark.read().parquet(t.getValue().toArray(String[]::new)).createOrReplaceTempView(t.getKey());
            }
            return new SparkConnectEngine(spark);
        } catch (RuntimeException e) {
            spark.close();
            throw e;
        }
    }

    @Override
    public ResultTable run(Query analysis) {
        Dataset<Row> result = spark.sql(analysis.sql(Query.Dialect.SPARK));
        List<String> columns = List.of(result.columns());
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : result.collectAsList()) {
            List<Object> values = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                values.add(ResultTable.plain(row.get(i)));
            }
            rows.add(values);
        }
        return new ResultTable(analysis.name(), columns, rows);
    }

    @Override
    public void close() {
        spark.close();
    }
}
