-- queue_length_summary: HTA's queue length summary (get_queue_length_summary and
-- get_time_spent_blocked_on_full_queue), as the trace engine's QueueLength gives it from trace files: per rank and
-- stream, pandas' describe() of the queue-length series' values (description.cte), the time the queue held analyze's
-- --max-queue-length launches or more (HTA's 1,024, where CUDA blocks a launch; microseconds) and its share of the
-- rank's span (first to last event of its tables).
-- The work counted and the queue's changes are the trace engine's (counted_work.cte, queue_points.cte).
WITH ${counted_work},
${queue_points},
described AS (
    SELECT job_id, rank, stream_id AS item, CAST(length AS DOUBLE) AS value
    FROM queue_points
),
${description},
full_queue AS (
    SELECT job_id, rank, stream_id,
           CAST(sum(CASE WHEN length >= ${max_queue_length} THEN next_t - t ELSE 0 END) AS BIGINT) AS full_ns
    FROM (SELECT job_id, rank, stream_id, t, length,
                 coalesce(lead(t) OVER (PARTITION BY job_id, rank, stream_id ORDER BY t, d DESC), t) AS next_t
          FROM queue_points) q
    GROUP BY job_id, rank, stream_id
),
spans AS (
    SELECT job_id, rank, max(end_ns) - min(start_ns) AS span_ns
    FROM (SELECT job_id, rank, start_ns, end_ns FROM events
          UNION ALL SELECT job_id, rank, start_ns, end_ns FROM kernels
          UNION ALL SELECT job_id, rank, time_ns AS start_ns, time_ns AS end_ns FROM memory) t
    GROUP BY job_id, rank
)
SELECT d.job_id,
       d.rank,
       d.item AS stream,
       CAST(d.n AS BIGINT) AS count,
       d.mean,
       d.std,
       d.min_value,
       d.q25,
       d.q50,
       d.q75,
       d.max_value,
       CAST(f.full_ns AS DOUBLE) / 1000.0 AS duration_at_max_queue_length,
       CASE WHEN coalesce(s.span_ns, 0) = 0 THEN 0.0
            ELSE CAST(f.full_ns AS DOUBLE) / CAST(s.span_ns AS DOUBLE) END AS relative_duration_at_max_queue_length
FROM description d
JOIN full_queue f ON f.job_id = d.job_id AND f.rank = d.rank AND f.stream_id = d.item
LEFT JOIN spans s ON s.job_id = d.job_id AND s.rank = d.rank
ORDER BY d.job_id, d.rank, stream
