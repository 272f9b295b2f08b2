-- queue_length_summary: HTA's queue length summary (get_queue_length_summary and
-- get_time_spent_blocked_on_full_queue), as the trace engine's QueueLength gives it from trace files: per rank and
-- stream, pandas' describe() of the queue-length series' values (count, mean, sample std, min, the quartiles by
-- linear interpolation, max), the time the queue held analyze's --max-queue-length launches or more (HTA's 1,024,
-- where CUDA blocks a launch; microseconds) and its share of the rank's span (first to last event of its tables).
-- The work counted and the queue's changes are the trace engine's (counted_work.cte, queue_points.cte).
WITH ${counted_work},
${queue_points},
ordered AS (
    SELECT job_id, rank, stream_id, length,
           row_number() OVER (PARTITION BY job_id, rank, stream_id ORDER BY length, t, d) - 1 AS i,
           count(*) OVER (PARTITION BY job_id, rank, stream_id
                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n,
           CASE WHEN length >= ${max_queue_length}
                THEN coalesce(lead(t) OVER (PARTITION BY job_id, rank, stream_id ORDER BY t, d DESC), t) - t
                ELSE 0 END AS full_ns
    FROM queue_points
),
ranked AS (
    SELECT job_id, rank, stream_id, length, i, n, full_ns,
           CAST(n - 1 AS DOUBLE) * CAST(0.25 AS DOUBLE) AS at25,
           CAST(n - 1 AS DOUBLE) * CAST(0.5 AS DOUBLE) AS at50,
           CAST(n - 1 AS DOUBLE) * CAST(0.75 AS DOUBLE) AS at75
    FROM ordered
),
per_stream AS (
    SELECT job_id, rank, stream_id,
           count(*) AS n,
           avg(CAST(length AS DOUBLE)) AS mean,
           stddev_samp(CAST(length AS DOUBLE)) AS std,
           CAST(min(length) AS DOUBLE) AS min_length,
           CAST(max(length) AS DOUBLE) AS max_length,
           max(at25) AS at25, max(at50) AS at50, max(at75) AS at75,
           max(CASE WHEN i = CAST(floor(at25) AS BIGINT) THEN length END) AS lo25,
           max(CASE WHEN i = CASE WHEN CAST(floor(at25) AS BIGINT) + 1 < n THEN CAST(floor(at25) AS BIGINT) + 1
                                  ELSE n - 1 END THEN length END) AS hi25,
           max(CASE WHEN i = CAST(floor(at50) AS BIGINT) THEN length END) AS lo50,
           max(CASE WHEN i = CASE WHEN CAST(floor(at50) AS BIGINT) + 1 < n THEN CAST(floor(at50) AS BIGINT) + 1
                                  ELSE n - 1 END THEN length END) AS hi50,
           max(CASE WHEN i = CAST(floor(at75) AS BIGINT) THEN length END) AS lo75,
           max(CASE WHEN i = CASE WHEN CAST(floor(at75) AS BIGINT) + 1 < n THEN CAST(floor(at75) AS BIGINT) + 1
                                  ELSE n - 1 END THEN length END) AS hi75,
           CAST(sum(full_ns) AS BIGINT) AS full_ns
    FROM ranked
    GROUP BY job_id, rank, stream_id
),
spans AS (
    SELECT job_id, rank, max(end_ns) - min(start_ns) AS span_ns
    FROM (SELECT job_id, rank, start_ns, end_ns FROM events
          UNION ALL SELECT job_id, rank, start_ns, end_ns FROM kernels
          UNION ALL SELECT job_id, rank, time_ns AS start_ns, time_ns AS end_ns FROM memory) t
    GROUP BY job_id, rank
)
SELECT p.job_id,
       p.rank,
       p.stream_id AS stream,
       CAST(p.n AS BIGINT) AS count,
       p.mean,
       p.std,
       p.min_length,
       CAST(p.lo25 AS DOUBLE) + CAST(p.hi25 - p.lo25 AS DOUBLE) * (p.at25 - floor(p.at25)) AS q25,
       CAST(p.lo50 AS DOUBLE) + CAST(p.hi50 - p.lo50 AS DOUBLE) * (p.at50 - floor(p.at50)) AS q50,
       CAST(p.lo75 AS DOUBLE) + CAST(p.hi75 - p.lo75 AS DOUBLE) * (p.at75 - floor(p.at75)) AS q75,
       p.max_length,
       CAST(p.full_ns AS DOUBLE) / 1000.0 AS duration_at_max_queue_length,
       CASE WHEN coalesce(s.span_ns, 0) = 0 THEN 0.0
            ELSE CAST(p.full_ns AS DOUBLE) / CAST(s.span_ns AS DOUBLE) END AS relative_duration_at_max_queue_length
FROM per_stream p
LEFT JOIN spans s ON s.job_id = p.job_id AND s.rank = p.rank
ORDER BY p.job_id, p.rank, stream
