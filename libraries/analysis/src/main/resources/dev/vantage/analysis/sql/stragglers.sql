-- stragglers: each rank's mean step time (steps.duration_ns: the step's time, its span extended to the end of the
-- device work attributed to it) against the median of those means over the ranks of its job; a rank whose mean step
-- is at least ${straggler_ratio} times that median is a straggler (the definition vantage report shares, in
-- Stragglers.java). Slowest first.
WITH per_rank AS (
    SELECT job_id, rank, count(*) AS steps,
           CAST(avg(duration_ns) AS DOUBLE) AS mean_step_ns,
           max(duration_ns) AS max_step_ns
    FROM steps
    GROUP BY job_id, rank
),
per_job AS (
    SELECT job_id, CAST(median(mean_step_ns) AS DOUBLE) AS median_ns
    FROM per_rank
    GROUP BY job_id
)
SELECT r.job_id,
       r.rank,
       r.steps,
       r.mean_step_ns,
       r.max_step_ns,
       p.median_ns AS median_rank_step_ns,
       r.mean_step_ns / NULLIF(p.median_ns, 0) AS vs_median,
       CASE WHEN p.median_ns > 0 AND r.mean_step_ns >= ${straggler_ratio} * p.median_ns THEN TRUE ELSE FALSE END
           AS straggler
FROM per_rank r
JOIN per_job p ON p.job_id = r.job_id
ORDER BY r.job_id, vs_median DESC, r.rank
