-- stragglers: each rank's mean step time against the median over the ranks of its job; a rank whose mean step
-- takes at least 10 % longer than that median is a straggler. Slowest first.
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
       CASE WHEN r.mean_step_ns >= 1.1 * p.median_ns THEN TRUE ELSE FALSE END AS straggler
FROM per_rank r
JOIN per_job p ON p.job_id = r.job_id
ORDER BY r.job_id, vs_median DESC, r.rank
