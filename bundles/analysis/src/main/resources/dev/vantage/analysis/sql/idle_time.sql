-- idle_time: how long each device of each rank sat idle inside profiler steps. A sweep over the step spans and the
-- device work of the rank: time inside a step with no device work running on the device is idle. Edges at the same
-- time are summed into one point first (see overlap.sql).
WITH devices AS (
    SELECT DISTINCT job_id, rank, device_type, device_index
    FROM kernels
),
edges AS (
    SELECT job_id, rank, device_type, device_index, start_ns AS t, 1 AS d_busy, 0 AS d_step
    FROM kernels
    UNION ALL
    SELECT job_id, rank, device_type, device_index, end_ns AS t, -1 AS d_busy, 0 AS d_step
    FROM kernels
    UNION ALL
    SELECT s.job_id, s.rank, d.device_type, d.device_index, s.start_ns AS t, 0 AS d_busy, 1 AS d_step
    FROM steps s JOIN devices d ON d.job_id = s.job_id AND d.rank = s.rank
    UNION ALL
    SELECT s.job_id, s.rank, d.device_type, d.device_index, s.end_ns AS t, 0 AS d_busy, -1 AS d_step
    FROM steps s JOIN devices d ON d.job_id = s.job_id AND d.rank = s.rank
),
points AS (
    SELECT job_id, rank, device_type, device_index, t, sum(d_busy) AS d_busy, sum(d_step) AS d_step
    FROM edges
    GROUP BY job_id, rank, device_type, device_index, t
),
sweep AS (
    SELECT job_id, rank, device_type, device_index, t,
           sum(d_busy) OVER (PARTITION BY job_id, rank, device_type, device_index ORDER BY t
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS busy,
           sum(d_step) OVER (PARTITION BY job_id, rank, device_type, device_index ORDER BY t
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS in_step,
           lead(t) OVER (PARTITION BY job_id, rank, device_type, device_index ORDER BY t) AS next_t
    FROM points
),
per_device AS (
    SELECT job_id, rank, device_type, device_index,
           CAST(sum(CASE WHEN in_step > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT) AS step_ns,
           CAST(sum(CASE WHEN in_step > 0 AND busy > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT)
               AS busy_ns
    FROM sweep
    GROUP BY job_id, rank, device_type, device_index
)
SELECT job_id,
       rank,
       device_type,
       device_index,
       step_ns,
       busy_ns,
       step_ns - busy_ns AS idle_ns,
       100.0 * CAST(step_ns - busy_ns AS DOUBLE) / NULLIF(CAST(step_ns AS DOUBLE), 0) AS idle_pct
FROM per_device
ORDER BY job_id, rank, device_type, device_index
