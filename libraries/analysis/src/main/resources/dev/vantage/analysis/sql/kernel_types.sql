-- kernel_types: HTA's kernel breakdown by type (get_gpu_kernel_breakdown's first table, memory kernels included), as
-- the trace engine's KernelBreakdown gives it from trace files: the time each kernel type ran on its own and each
-- set of types ran at once ('COMPUTATION overlapping COMMUNICATION'), summed over the job's ranks, and its share of
-- all device time in per cent rounded to one decimal. A copy or fill is MEMORY, a kernel COMMUNICATION when
-- kernels.communication says so, else COMPUTATION. One sweep per rank counts the work of each type running between
-- two consecutive edges, edge by edge (edges at one instant are no time apart, so their order there changes no
-- length; grouping them first ran out of DuckDB's 1 GB limit at 1,000 ranks). Times in microseconds; analyze names the columns as HTA does (sum, percentage).
-- The work counted is the trace engine's (counted_work.cte).
WITH ${counted_work},
work AS (
    SELECT job_id, rank, event_id, start_ns,
           CASE WHEN end_ns > start_ns THEN end_ns ELSE start_ns END AS end_ns,
           CASE WHEN kind = 'kernel' AND NOT communication THEN 1 ELSE 0 END AS computation,
           CASE WHEN kind = 'kernel' AND communication THEN 1 ELSE 0 END AS communication,
           CASE WHEN kind = 'kernel' THEN 0 ELSE 1 END AS memory
    FROM counted
),
edges AS (
    SELECT w.job_id, w.rank, w.event_id, CASE WHEN e.d = 1 THEN w.start_ns ELSE w.end_ns END AS t, e.d,
           e.d * w.computation AS a,
           e.d * w.communication AS b, e.d * w.memory AS m
    FROM work w
    CROSS JOIN (SELECT 1 AS d UNION ALL SELECT -1 AS d) e
),
sweep AS (
    SELECT job_id, rank, t,
           sum(a) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a,
           sum(b) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS b,
           sum(m) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS m,
           lead(t) OVER (PARTITION BY job_id, rank ORDER BY t, d, event_id) AS next_t
    FROM edges
),
spans AS (
    SELECT job_id,
           CASE WHEN a > 0 THEN 1 ELSE 0 END + CASE WHEN b > 0 THEN 2 ELSE 0 END
               + CASE WHEN m > 0 THEN 4 ELSE 0 END AS types,
           next_t - t AS length_ns
    FROM sweep
    WHERE next_t IS NOT NULL AND next_t > t
),
per_type AS (
    SELECT job_id, types, CAST(sum(length_ns) AS BIGINT) AS sum_ns
    FROM spans
    WHERE types > 0
    GROUP BY job_id, types
),
labelled AS (
    SELECT job_id,
           CASE types
               WHEN 1 THEN 'COMPUTATION'
               WHEN 2 THEN 'COMMUNICATION'
               WHEN 3 THEN 'COMPUTATION overlapping COMMUNICATION'
               WHEN 4 THEN 'MEMORY'
               WHEN 5 THEN 'COMPUTATION overlapping MEMORY'
               WHEN 6 THEN 'COMMUNICATION overlapping MEMORY'
               ELSE 'COMPUTATION overlapping COMMUNICATION overlapping MEMORY'
           END AS kernel_type,
           sum_ns,
           CAST(sum(sum_ns) OVER (PARTITION BY job_id
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS BIGINT) AS all_ns
    FROM per_type
)
SELECT job_id,
       kernel_type,
       CAST(sum_ns AS DOUBLE) / 1000.0 AS sum_us,
       round(1000.0 * CAST(sum_ns AS DOUBLE) / CAST(all_ns AS DOUBLE)) / 10.0 AS percentage
FROM labelled
ORDER BY job_id, sum_ns DESC, kernel_type
