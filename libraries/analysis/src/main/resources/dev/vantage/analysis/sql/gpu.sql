-- gpu: the TensorBoard profiler plugin's GPU figures of each rank's devices, as the trace engine's GpuMetrics gives
-- them from a trace file (the plugin's gpu_metrics_parser.py). Over the span of the rank's steps, from the first
-- step's start to the last step's end (its device work included; without steps, from the first host event to the
-- last host event or kernel): the share of the span with a kernel running on the device (gpu_utilization); the
-- estimated SM efficiency, at each instant the running kernels' blocks per SM summed and capped at 1, averaged over
-- the span (sm_efficiency; null when no kernel with blocks per SM ran inside it); the kernels' estimated achieved
-- occupancy weighted by their time inside the span (achieved_occupancy, per cent; null when no kernel carries one);
-- the share of the device's kernel time on Tensor Cores, all its kernels, by their names as the engine's TensorCores
-- knows them (tensor_core_pct). Kernels only: copies and fills do not count, as in the plugin. One row per device
-- that ran a kernel, span in microseconds.
WITH kernel AS (
    SELECT job_id, rank, device_index, event_id, name, start_ns,
           CASE WHEN end_ns > start_ns THEN end_ns ELSE start_ns END AS end_ns,
           blocks_per_sm, est_achieved_occupancy_pct
    FROM kernels
    WHERE kind = 'kernel'
),
last_step AS (
    SELECT job_id, rank, start_ns, end_ns,
           row_number() OVER (PARTITION BY job_id, rank ORDER BY start_ns DESC, step DESC) AS from_last
    FROM steps
),
step_span AS (
    SELECT f.job_id, f.rank, f.from_ns, l.end_ns AS to_ns
    FROM (SELECT job_id, rank, min(start_ns) AS from_ns FROM steps GROUP BY job_id, rank) f
    JOIN last_step l ON l.job_id = f.job_id AND l.rank = f.rank AND l.from_last = 1
),
host_times AS (
    SELECT job_id, rank, start_ns AS t0, end_ns AS t1 FROM events WHERE kind IN ('cpu_op', 'user_annotation')
    UNION ALL
    SELECT job_id, rank, time_ns AS t0, time_ns AS t1 FROM memory
),
host_span AS (
    SELECT h.job_id, h.rank, h.from_ns,
           CASE WHEN k.kernel_end > h.host_end THEN k.kernel_end ELSE h.host_end END AS to_ns
    FROM (SELECT job_id, rank, min(t0) AS from_ns, max(t1) AS host_end FROM host_times GROUP BY job_id, rank) h
    JOIN (SELECT job_id, rank, max(end_ns) AS kernel_end FROM kernel GROUP BY job_id, rank) k
        ON k.job_id = h.job_id AND k.rank = h.rank
),
span AS (
    SELECT job_id, rank, from_ns, to_ns FROM step_span
    UNION ALL
    SELECT h.job_id, h.rank, h.from_ns, h.to_ns
    FROM host_span h
    LEFT JOIN step_span s ON s.job_id = h.job_id AND s.rank = h.rank
    WHERE s.job_id IS NULL
),
-- the kernels of each device as islands of overlapping work (a new island where a kernel starts after every earlier
-- one ended), each island clipped to the span
by_start AS (
    SELECT job_id, rank, device_index, event_id, start_ns, end_ns,
           max(end_ns) OVER (PARTITION BY job_id, rank, device_index ORDER BY start_ns, end_ns, event_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS ended_before
    FROM kernel
),
numbered AS (
    SELECT job_id, rank, device_index, start_ns, end_ns,
           sum(CASE WHEN ended_before IS NULL OR start_ns > ended_before THEN 1 ELSE 0 END)
               OVER (PARTITION BY job_id, rank, device_index ORDER BY start_ns, end_ns, event_id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS island
    FROM by_start
),
busy AS (
    SELECT i.job_id, i.rank, i.device_index,
           CAST(sum(CASE WHEN (CASE WHEN i.island_end < s.to_ns THEN i.island_end ELSE s.to_ns END)
                              > (CASE WHEN i.island_start > s.from_ns THEN i.island_start ELSE s.from_ns END)
                         THEN (CASE WHEN i.island_end < s.to_ns THEN i.island_end ELSE s.to_ns END)
                              - (CASE WHEN i.island_start > s.from_ns THEN i.island_start ELSE s.from_ns END)
                         ELSE 0 END) AS BIGINT) AS busy_ns
    FROM (SELECT job_id, rank, device_index, island, min(start_ns) AS island_start, max(end_ns) AS island_end
          FROM numbered GROUP BY job_id, rank, device_index, island) i
    JOIN span s ON s.job_id = i.job_id AND s.rank = i.rank
    GROUP BY i.job_id, i.rank, i.device_index
),
-- blocks per SM: +blocks at a kernel's start, -blocks at its end; starts before ends at one instant, as the plugin
-- sorts them; the running sum holds from one edge to the next
edges AS (
    SELECT k.job_id, k.rank, k.device_index, k.event_id, CASE WHEN e.d = 1 THEN k.start_ns ELSE k.end_ns END AS t,
           CASE WHEN e.d = 1 THEN 0 ELSE 1 END AS ending, e.d * k.blocks_per_sm AS blocks
    FROM kernel k
    CROSS JOIN (SELECT 1 AS d UNION ALL SELECT -1 AS d) e
    WHERE k.blocks_per_sm > 0
),
sweep AS (
    SELECT job_id, rank, device_index, t,
           sum(blocks) OVER (PARTITION BY job_id, rank, device_index ORDER BY t, ending, event_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running,
           lead(t) OVER (PARTITION BY job_id, rank, device_index ORDER BY t, ending, event_id) AS next_t
    FROM edges
),
sm AS (
    SELECT w.job_id, w.rank, w.device_index,
           sum(CASE WHEN w.running > 0 AND w.next_t > w.t
                         AND (CASE WHEN w.next_t < s.to_ns THEN w.next_t ELSE s.to_ns END)
                             > (CASE WHEN w.t > s.from_ns THEN w.t ELSE s.from_ns END)
                    THEN least(w.running, 1.0)
                         * CAST((CASE WHEN w.next_t < s.to_ns THEN w.next_t ELSE s.to_ns END)
                                - (CASE WHEN w.t > s.from_ns THEN w.t ELSE s.from_ns END) AS DOUBLE)
                    ELSE 0.0 END) AS weighted,
           sum(CASE WHEN w.running > 0 AND w.next_t > w.t
                         AND (CASE WHEN w.next_t < s.to_ns THEN w.next_t ELSE s.to_ns END)
                             > (CASE WHEN w.t > s.from_ns THEN w.t ELSE s.from_ns END)
                    THEN 1 ELSE 0 END) AS inside
    FROM sweep w
    JOIN span s ON s.job_id = w.job_id AND s.rank = w.rank
    GROUP BY w.job_id, w.rank, w.device_index
),
per_device AS (
    SELECT k.job_id, k.rank, k.device_index,
           sum(CASE WHEN k.est_achieved_occupancy_pct >= 0
                         AND (CASE WHEN k.end_ns < s.to_ns THEN k.end_ns ELSE s.to_ns END)
                             > (CASE WHEN k.start_ns > s.from_ns THEN k.start_ns ELSE s.from_ns END)
                    THEN k.est_achieved_occupancy_pct
                         * CAST((CASE WHEN k.end_ns < s.to_ns THEN k.end_ns ELSE s.to_ns END)
                                - (CASE WHEN k.start_ns > s.from_ns THEN k.start_ns ELSE s.from_ns END) AS DOUBLE)
                    ELSE 0.0 END) AS occupancy_weighted,
           CAST(sum(CASE WHEN k.est_achieved_occupancy_pct >= 0
                              AND (CASE WHEN k.end_ns < s.to_ns THEN k.end_ns ELSE s.to_ns END)
                                  > (CASE WHEN k.start_ns > s.from_ns THEN k.start_ns ELSE s.from_ns END)
                         THEN (CASE WHEN k.end_ns < s.to_ns THEN k.end_ns ELSE s.to_ns END)
                              - (CASE WHEN k.start_ns > s.from_ns THEN k.start_ns ELSE s.from_ns END)
                         ELSE 0 END) AS BIGINT) AS occupancy_ns,
           CAST(sum(k.end_ns - k.start_ns) AS BIGINT) AS kernel_ns,
           CAST(sum(CASE WHEN lower(k.name) LIKE '%884%' OR lower(k.name) LIKE '%1688%'
                              OR lower(k.name) LIKE '%16816%' OR lower(k.name) LIKE '%8816%'
                              OR lower(k.name) LIKE '%tensorop%' OR lower(k.name) LIKE '%xmma%'
                              OR lower(k.name) LIKE '%hmma%' OR lower(k.name) LIKE '%wmma%'
                              OR lower(k.name) LIKE '%gmma%' OR lower(k.name) LIKE '%mfma%'
                              OR lower(k.name) LIKE '%imma%'
                         THEN k.end_ns - k.start_ns ELSE 0 END) AS BIGINT) AS tensor_ns,
           max(CASE WHEN k.blocks_per_sm > 0 THEN 1 ELSE 0 END) AS any_blocks,
           CAST(s.to_ns - s.from_ns AS BIGINT) AS raw_span_ns
    FROM kernel k
    JOIN span s ON s.job_id = k.job_id AND s.rank = k.rank
    GROUP BY k.job_id, k.rank, k.device_index, s.from_ns, s.to_ns
)
SELECT d.job_id,
       d.rank,
       d.device_index AS device,
       CASE WHEN d.raw_span_ns > 0 THEN CAST(coalesce(b.busy_ns, 0) AS DOUBLE) / CAST(d.raw_span_ns AS DOUBLE)
            ELSE 0.0 END AS gpu_utilization,
       CASE WHEN d.any_blocks = 1 AND d.raw_span_ns > 0 AND m.inside > 0
            THEN m.weighted / CAST(d.raw_span_ns AS DOUBLE) END AS sm_efficiency,
       CASE WHEN d.occupancy_ns > 0 THEN d.occupancy_weighted / CAST(d.occupancy_ns AS DOUBLE) END
           AS achieved_occupancy,
       CASE WHEN d.kernel_ns > 0 THEN 100.0 * CAST(d.tensor_ns AS DOUBLE) / CAST(d.kernel_ns AS DOUBLE) ELSE 0.0 END
           AS tensor_core_pct,
       CAST(CASE WHEN d.raw_span_ns > 0 THEN d.raw_span_ns ELSE 0 END AS DOUBLE) / 1000.0 AS span_us
FROM per_device d
LEFT JOIN busy b ON b.job_id = d.job_id AND b.rank = d.rank AND b.device_index = d.device_index
LEFT JOIN sm m ON m.job_id = d.job_id AND m.rank = d.rank AND m.device_index = d.device_index
ORDER BY d.job_id, d.rank, d.device_index
