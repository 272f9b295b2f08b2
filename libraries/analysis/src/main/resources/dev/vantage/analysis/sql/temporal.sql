-- temporal: HTA's temporal breakdown (get_temporal_breakdown) of each rank, as the trace engine's Temporal gives it
-- from a trace file: over the span from the rank's first device work's start to its last one's end (kernel_time),
-- the time no device work ran (idle_time), the time a computation kernel ran (compute_time) and the rest, when only
-- copies, fills or communication ran (non_compute_time). Every device and stream of the rank together, as HTA does.
-- A computation kernel is a kernel that is not communication (kernels.communication: the engine's table of
-- communication names). One sweep per rank counts the work running, and the computation running, between two
-- consecutive edges, edge by edge (edges at one instant are no time apart, so their order there changes no length;
-- grouping them first ran out of DuckDB's 1 GB limit at 1,000 ranks). Times in microseconds, shares in per cent rounded to two decimals; analyze names the columns
-- as HTA does (idle_time(us), ...).
-- The work counted is the trace engine's (counted_work.cte).
WITH ${counted_work},
work AS (
    SELECT job_id, rank, event_id, start_ns,
           CASE WHEN end_ns > start_ns THEN end_ns ELSE start_ns END AS end_ns,
           CASE WHEN kind = 'kernel' AND NOT communication THEN 1 ELSE 0 END AS compute
    FROM counted
),
edges AS (
    SELECT w.job_id, w.rank, w.event_id, CASE WHEN e.d = 1 THEN w.start_ns ELSE w.end_ns END AS t, e.d, e.d * w.compute AS c
    FROM work w
    CROSS JOIN (SELECT 1 AS d UNION ALL SELECT -1 AS d) e
),
sweep AS (
    SELECT job_id, rank, t,
           sum(d) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
           sum(c) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS computing,
           lead(t) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id) AS next_t
    FROM edges
),
per_rank AS (
    SELECT job_id, rank,
           CAST(max(t) - min(t) AS BIGINT) AS span_ns,
           CAST(sum(CASE WHEN running > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT) AS busy_ns,
           CAST(sum(CASE WHEN computing > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT)
               AS compute_ns
    FROM sweep
    GROUP BY job_id, rank
)
SELECT job_id,
       rank,
       CAST(span_ns - busy_ns AS DOUBLE) / 1000.0 AS idle_us,
       CAST(compute_ns AS DOUBLE) / 1000.0 AS compute_us,
       CAST(busy_ns - compute_ns AS DOUBLE) / 1000.0 AS non_compute_us,
       CAST(span_ns AS DOUBLE) / 1000.0 AS kernel_us,
       coalesce(round(10000.0 * CAST(span_ns - busy_ns AS DOUBLE) / NULLIF(CAST(span_ns AS DOUBLE), 0)) / 100.0, 0.0)
           AS idle_pct,
       coalesce(round(10000.0 * CAST(compute_ns AS DOUBLE) / NULLIF(CAST(span_ns AS DOUBLE), 0)) / 100.0, 0.0)
           AS compute_pct,
       coalesce(round(10000.0 * CAST(busy_ns - compute_ns AS DOUBLE) / NULLIF(CAST(span_ns AS DOUBLE), 0)) / 100.0,
                0.0) AS non_compute_pct
FROM per_rank
ORDER BY job_id, rank
