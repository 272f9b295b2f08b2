-- queue_length: HTA's queue length over time (get_queue_length_time_series), as the trace engine's QueueLength gives
-- it from trace files: per rank and stream, the launched work not yet started, a point at each change (ts in
-- microseconds since the epoch; the engine gives the trace's own clock, which a PyTorch trace keeps in the epoch).
-- The work counted and the queue's changes are the trace engine's (counted_work.cte, queue_points.cte).
WITH ${counted_work},
${queue_points}
SELECT job_id,
       rank,
       stream_id AS stream,
       CAST(t AS DOUBLE) / 1000.0 AS ts,
       CAST(length AS BIGINT) AS queue_length
FROM queue_points
ORDER BY job_id, rank, stream, t, d DESC, queue_length
