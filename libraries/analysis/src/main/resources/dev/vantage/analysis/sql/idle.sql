-- idle: HTA's idle time breakdown (get_idle_time_breakdown), as the trace engine's IdleTime gives it from trace
-- files: on each stream, the gaps between one piece of work's end and the next one's start (in start order), by what
-- the device waited for: host_wait when the next work's runtime call started after the previous work had ended (the
-- host had not launched it yet), else kernel_wait for a gap under analyze's --kernel-wait (HTA's 30 us), else other.
-- Per rank and stream, each category a gap fell in (other always), its time in microseconds and its share of the
-- stream's gap time rounded to two decimals (null when the stream has none).
-- The work counted is the trace engine's (DeviceWork), as HTA counts it: with two steps or more, the last step is
-- left out, since a capture often ends before its work does: work counts when the runtime call that launched it
-- (events.flow_id = kernels.flow_id) started before the last step did; work whose launch is not in the trace counts
-- only in a rank that records no launch at all, when it started before the last step.
WITH calls AS (
    SELECT job_id, rank, flow_id, start_ns
    FROM events
    WHERE flow_id IS NOT NULL
),
launching AS (
    SELECT DISTINCT job_id, rank
    FROM calls
),
last_steps AS (
    SELECT job_id, rank, CASE WHEN count(DISTINCT step) >= 2 THEN max(start_ns) END AS cut_ns
    FROM steps
    GROUP BY job_id, rank
),
counted AS (
    SELECT k.job_id, k.rank, k.stream_id, k.event_id, k.start_ns, k.end_ns, c.start_ns AS call_start_ns
    FROM kernels k
    LEFT JOIN calls c ON c.job_id = k.job_id AND c.rank = k.rank AND c.flow_id = k.flow_id
    LEFT JOIN launching l ON l.job_id = k.job_id AND l.rank = k.rank
    LEFT JOIN last_steps s ON s.job_id = k.job_id AND s.rank = k.rank
    WHERE k.kind IN ('kernel', 'gpu_memcpy', 'gpu_memset')
      AND (s.cut_ns IS NULL
           OR (c.start_ns IS NOT NULL AND c.start_ns < s.cut_ns)
           OR (c.start_ns IS NULL AND l.rank IS NULL AND k.start_ns < s.cut_ns))
),
ordered AS (
    SELECT job_id, rank, stream_id, start_ns, call_start_ns,
           lag(end_ns) OVER (PARTITION BY job_id, rank, stream_id ORDER BY start_ns, event_id) AS previous_end_ns
    FROM counted
),
gaps AS (
    SELECT job_id, rank, stream_id, start_ns - previous_end_ns AS gap_ns,
           CASE WHEN call_start_ns IS NOT NULL AND call_start_ns > previous_end_ns THEN 'host_wait'
                WHEN start_ns - previous_end_ns < ${kernel_wait_us} * 1000 THEN 'kernel_wait'
                ELSE 'other' END AS category
    FROM ordered
    WHERE previous_end_ns IS NOT NULL
),
per_category AS (
    SELECT job_id, rank, stream_id, category, CAST(sum(gap_ns) AS BIGINT) AS idle_ns
    FROM gaps
    GROUP BY job_id, rank, stream_id, category
),
streams AS (
    SELECT DISTINCT job_id, rank, stream_id
    FROM counted
),
categories AS (
    SELECT s.job_id, s.rank, s.stream_id, 'other' AS category, coalesce(p.idle_ns, 0) AS idle_ns
    FROM streams s
    LEFT JOIN per_category p ON p.job_id = s.job_id AND p.rank = s.rank AND p.stream_id = s.stream_id
        AND p.category = 'other'
    UNION ALL
    SELECT job_id, rank, stream_id, category, idle_ns
    FROM per_category
    WHERE category <> 'other'
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
