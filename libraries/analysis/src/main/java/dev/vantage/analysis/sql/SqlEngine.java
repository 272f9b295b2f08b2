package dev.vantage.analysis.sql;

/**
 * An engine that runs the analysis SQL ({@link Query}) over the four tables ({@link Query#TABLES}), which it defines
 * over the Parquet files when it opens: DuckDB embedded ({@link DuckDbEngine}) or a Spark cluster through Spark
 * Connect ({@link SparkConnect}). Not thread-safe: one query at a time.
 */
public interface SqlEngine extends AutoCloseable {

    /** Runs one analysis and returns its rows, values made {@link ResultTable#plain plain}. */
    ResultTable run(Query analysis) throws Exception;

    @Override
    void close() throws Exception;
}
