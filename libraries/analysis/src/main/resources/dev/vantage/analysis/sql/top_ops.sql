-- top_ops: the host ops (cpu_op) with the most self time summed over all ranks of a job, 20 per job. max_rank_self_ns
-- is the largest total of one rank, spread its ratio to the mean over the ranks that ran the op (1.0 = even).
WITH per_rank AS (
    SELECT job_id, name, rank, count(*) AS calls, CAST(sum(self_ns) AS BIGINT) AS self_ns
    FROM events
    WHERE kind = 'cpu_op'
    GROUP BY job_id, name, rank
),
per_op AS (
    SELECT job_id, name,
           CAST(sum(calls) AS BIGINT) AS calls,
           count(*) AS ranks,
           CAST(sum(self_ns) AS BIGINT) AS total_self_ns,
           max(self_ns) AS max_rank_self_ns,
           CAST(avg(self_ns) AS DOUBLE) AS mean_rank_self_ns
    FROM per_rank
    GROUP BY job_id, name
),
ranked AS (
    SELECT job_id, name, calls, ranks, total_self_ns, max_rank_self_ns, mean_rank_self_ns,
           row_number() OVER (PARTITION BY job_id ORDER BY total_self_ns DESC, name) AS position
    FROM per_op
)
SELECT job_id,
       position,
       name,
       calls,
       ranks,
       total_self_ns,
       CAST(total_self_ns AS DOUBLE) / calls AS mean_self_ns,
       max_rank_self_ns,
       CAST(max_rank_self_ns AS DOUBLE) / NULLIF(mean_rank_self_ns, 0) AS spread
FROM ranked
WHERE position <= 20
ORDER BY job_id, position
