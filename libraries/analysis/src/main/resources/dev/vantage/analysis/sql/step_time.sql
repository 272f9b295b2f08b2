-- step_time: every profiler step of every rank, against the median of that step over the ranks of the job.
-- vs_median is the rank's step time divided by that median (1.0 = typical).
WITH per_step AS (
    SELECT job_id, step, CAST(median(duration_ns) AS DOUBLE) AS median_ns
    FROM steps
    GROUP BY job_id, step
)
SELECT s.job_id,
       s.rank,
       s.step,
       s.duration_ns AS step_ns,
       p.median_ns AS median_step_ns,
       CAST(s.duration_ns AS DOUBLE) / NULLIF(p.median_ns, 0) AS vs_median
FROM steps s
JOIN per_step p ON p.job_id = s.job_id AND p.step = s.step
ORDER BY s.job_id, s.rank, s.step
