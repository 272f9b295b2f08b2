-- idle: HTA's idle time breakdown (get_idle_time_breakdown), as the trace engine's IdleTime gives it from trace
-- files: on each stream, the gaps between one piece of work's end and the next one's start (in start order), by what
-- the device waited for: host_wait when the next work's runtime call started after the previous work had ended (the
-- host had not launched it yet), else kernel_wait for a gap under analyze's --kernel-wait (HTA's 30 us), else other.
-- Per rank and stream, each category a gap fell in (other always), its time in microseconds and its share of the
-- stream's gap time rounded to two decimals (null when the stream has none).
-- The work counted is the trace engine's (counted_work.cte).
WITH ${counted_work},
ordered AS (
    SELECT job_id, rank, stream_id, start_ns, call_start_ns,
           lag(end_ns) OVER (PARTITION BY job_id, rank, stream_id ORDER BY start_ns, event_id) AS previous_end_ns
    FROM counted
),
gaps AS (
    SELECT job_id, rank, stream_id, coalesce(start_ns - previous_end_ns, 0) AS gap_ns,
           CASE WHEN previous_end_ns IS NULL THEN NULL
                WHEN call_start_ns IS NOT NULL AND call_start_ns > previous_end_ns THEN 'host_wait'
                WHEN start_ns - previous_end_ns < ${kernel_wait_us} * 1000 THEN 'kernel_wait'
                ELSE 'other' END AS category
    FROM ordered
),
per_category AS (
    -- a stream's first work has no gap before it: category null, which gives every stream its row here
    SELECT job_id, rank, stream_id, category, CAST(sum(gap_ns) AS BIGINT) AS idle_ns
    FROM gaps
    GROUP BY job_id, rank, stream_id, category
),
categories AS (
    -- other on every stream, as HTA lists it; host_wait and kernel_wait where a gap fell in them
    SELECT job_id, rank, stream_id, 'other' AS category,
           CAST(sum(CASE WHEN category = 'other' THEN idle_ns ELSE 0 END) AS BIGINT) AS idle_ns
    FROM per_category
    GROUP BY job_id, rank, stream_id
    UNION ALL
    SELECT job_id, rank, stream_id, category, idle_ns
    FROM per_category
    WHERE category IN ('host_wait', 'kernel_wait')
),
totals AS (
    SELECT job_id, rank, stream_id, category, idle_ns,
           sum(idle_ns) OVER (PARTITION BY job_id, rank, stream_id
                              ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS stream_ns
    FROM categories
)
SELECT job_id,
       rank,
       stream_id AS stream,
       category AS idle_category,
       CAST(idle_ns AS DOUBLE) / 1000.0 AS idle_time,
       CASE WHEN stream_ns = 0 THEN NULL
            ELSE round(100.0 * CAST(idle_ns AS DOUBLE) / CAST(stream_ns AS DOUBLE)) / 100.0 END AS idle_time_ratio
FROM totals
ORDER BY job_id, rank, stream, CASE category WHEN 'host_wait' THEN 0 WHEN 'kernel_wait' THEN 1 ELSE 2 END
