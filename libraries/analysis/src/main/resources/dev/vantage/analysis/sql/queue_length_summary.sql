-- queue_length_summary: HTA's queue length summary (get_queue_length_summary and
-- get_time_spent_blocked_on_full_queue), as the trace engine's QueueLength gives it from trace files: per rank and
-- stream, pandas' describe() of the queue-length series' values (description.cte), the time the queue held analyze's
-- --max-queue-length launches or more (HTA's 1,024, where CUDA blocks a launch; microseconds) and its share of the
-- rank's span (first to last event of its tables).
-- The work counted and the queue's changes are the trace engine's (counted_work.cte, queue_points.cte).
WITH ${counted_work},
${queue_points},
described AS (
    -- each point's length, and the time to the next point when the queue is full then
    SELECT job_id, rank, stream_id AS item, CAST(length AS DOUBLE) AS value,
           CASE WHEN length >= ${max_queue_length}
                THEN coalesce(lead(t) OVER (PARTITION BY job_id, rank, stream_id ORDER BY t, d DESC), t) - t
                ELSE 0 END AS extra
    FROM queue_points
),
${description},
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
       CAST(d.extra_sum AS DOUBLE) / 1000.0 AS duration_at_max_queue_length,
       CASE WHEN coalesce(s.span_ns, 0) = 0 THEN 0.0
            ELSE CAST(d.extra_sum AS DOUBLE) / CAST(s.span_ns AS DOUBLE) END AS relative_duration_at_max_queue_length
FROM description d
LEFT JOIN spans s ON s.job_id = d.job_id AND s.rank = d.rank
ORDER BY d.job_id, d.rank, stream
