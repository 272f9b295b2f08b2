-- overlap: how much of each rank's communication (device work with communication = true) runs while compute work
-- runs on the same device. A sweep over the start and end times of the device work: between two consecutive
-- times, the device is computing if a compute kernel is running and communicating if a communication kernel is.
-- comm_ns is the time communicating, overlapped_ns the part of it also computing, exposed_comm_ns the rest.
-- Edges at the same time are summed into one point first, so that the ROWS frame sees the state after all of them
-- (a RANGE frame would too, but DuckDB cannot spill it: at fleet scale it ran out of a 1 GB memory limit).
WITH edges AS (
    SELECT job_id, rank, device_type, device_index, start_ns AS t,
           CASE WHEN communication THEN 0 ELSE 1 END AS d_compute,
           CASE WHEN communication THEN 1 ELSE 0 END AS d_comm
    FROM kernels
    UNION ALL
    SELECT job_id, rank, device_type, device_index, end_ns AS t,
           CASE WHEN communication THEN 0 ELSE -1 END AS d_compute,
           CASE WHEN communication THEN -1 ELSE 0 END AS d_comm
    FROM kernels
),
points AS (
    SELECT job_id, rank, device_type, device_index, t, sum(d_compute) AS d_compute, sum(d_comm) AS d_comm
    FROM edges
    GROUP BY job_id, rank, device_type, device_index, t
),
sweep AS (
    SELECT job_id, rank, device_type, device_index, t,
           sum(d_compute) OVER (PARTITION BY job_id, rank, device_type, device_index ORDER BY t
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS computing,
           sum(d_comm) OVER (PARTITION BY job_id, rank, device_type, device_index ORDER BY t
                             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS communicating,
           lead(t) OVER (PARTITION BY job_id, rank, device_type, device_index ORDER BY t) AS next_t
    FROM points
),
per_rank AS (
    SELECT job_id, rank,
           CAST(sum(CASE WHEN computing > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT)
               AS compute_ns,
           CAST(sum(CASE WHEN communicating > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END) AS BIGINT)
               AS comm_ns,
           CAST(sum(CASE WHEN communicating > 0 AND computing > 0 AND next_t IS NOT NULL THEN next_t - t ELSE 0 END)
               AS BIGINT) AS overlapped_ns
    FROM sweep
    GROUP BY job_id, rank
)
SELECT job_id,
       rank,
       compute_ns,
       comm_ns,
       overlapped_ns,
       comm_ns - overlapped_ns AS exposed_comm_ns,
       100.0 * CAST(overlapped_ns AS DOUBLE) / NULLIF(CAST(comm_ns AS DOUBLE), 0) AS overlap_pct
FROM per_rank
ORDER BY job_id, rank
