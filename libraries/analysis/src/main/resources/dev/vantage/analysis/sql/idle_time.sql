-- idle_time: how long each device of each rank sat idle in its profiler steps: the steps' time (steps.duration_ns)
-- less the time the device worked for those steps, the union of the device work attributed to each step
-- (kernels.step, the trace model's StepRule as the exporter wrote it: the step the work's launching op started in).
-- A sweep per step over the start and end times of its work; edges at the same time are summed into one point first
-- (see overlap.sql).
WITH work AS (
    SELECT job_id, rank, device_type, device_index, step, start_ns, end_ns
    FROM kernels
    WHERE step IS NOT NULL
),
edges AS (
    SELECT job_id, rank, device_type, device_index, step, start_ns AS t, 1 AS d FROM work
    UNION ALL
    SELECT job_id, rank, device_type, device_index, step, end_ns AS t, -1 AS d FROM work
),
points AS (
    SELECT job_id, rank, device_type, device_index, step, t, sum(d) AS d
    FROM edges
    GROUP BY job_id, rank, device_type, device_index, step, t
),
sweep AS (
    SELECT job_id, rank, device_type, device_index, step, t,
           sum(d) OVER (PARTITION BY job_id, rank, device_type, device_index, step ORDER BY t
                        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS busy,
           lead(t) OVER (PARTITION BY job_id, rank, device_type, device_index, step ORDER BY t) AS next_t
    FROM points
),
busy_per_step AS (
    SELECT job_id, rank, device_type, device_index, step,
           CAST(sum(CASE WHEN busy > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT) AS busy_ns
    FROM sweep
    GROUP BY job_id, rank, device_type, device_index, step
),
devices AS (
    SELECT DISTINCT job_id, rank, device_type, device_index
    FROM kernels
),
per_step AS (
    SELECT d.job_id, d.rank, d.device_type, d.device_index, s.duration_ns AS step_ns,
           coalesce(b.busy_ns, 0) AS busy_ns
    FROM steps s
    JOIN devices d ON d.job_id = s.job_id AND d.rank = s.rank
    LEFT JOIN busy_per_step b ON b.job_id = s.job_id AND b.rank = s.rank AND b.device_type = d.device_type
        AND b.device_index = d.device_index AND b.step = s.step
),
per_device AS (
    SELECT job_id, rank, device_type, device_index,
           CAST(sum(step_ns) AS BIGINT) AS step_ns,
           CAST(sum(busy_ns) AS BIGINT) AS busy_ns
    FROM per_step
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
