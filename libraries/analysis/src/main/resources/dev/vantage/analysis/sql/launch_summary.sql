-- launch_summary: per rank, what HTA's charts of the launch statistics show (see launch.sql): the launches, the
-- short kernels (work that ran shorter than its call, the call within the runtime cut-off), the calls over the
-- runtime cut-off, the delays over the delay cut-off; the cut-offs (microseconds) are analyze's --runtime-cutoff and
-- --launch-delay-cutoff, HTA's 50 and 100 by default. Every rank has its row, 0 launches included.
-- The work counted and the launches are the trace engine's (counted_work.cte, launches.cte).
WITH ${counted_work},
${launches},
ranks AS (
    SELECT DISTINCT job_id, rank
    FROM events
),
per_rank AS (
    SELECT r.job_id, r.rank,
           count(l.correlation) AS launches,
           sum(CASE WHEN l.cpu_ns <= ${runtime_cutoff_us} * 1000 AND l.gpu_ns < l.cpu_ns THEN 1 ELSE 0 END)
               AS short_kernels,
           sum(CASE WHEN l.cpu_ns > ${runtime_cutoff_us} * 1000 THEN 1 ELSE 0 END) AS runtime_outliers,
           sum(CASE WHEN l.delay_ns > ${launch_delay_cutoff_us} * 1000 THEN 1 ELSE 0 END) AS launch_delay_outliers
    FROM ranks r
    LEFT JOIN launches l ON l.job_id = r.job_id AND l.rank = r.rank
    GROUP BY r.job_id, r.rank
)
SELECT job_id,
       rank,
       CAST(launches AS BIGINT) AS launches,
       CAST(coalesce(short_kernels, 0) AS BIGINT) AS short_kernels,
       CAST(coalesce(runtime_outliers, 0) AS BIGINT) AS runtime_outliers,
       CAST(coalesce(launch_delay_outliers, 0) AS BIGINT) AS launch_delay_outliers,
       CAST(${runtime_cutoff_us} AS BIGINT) AS runtime_cutoff,
       CAST(${launch_delay_cutoff_us} AS BIGINT) AS launch_delay_cutoff
FROM per_rank
ORDER BY job_id, rank
