-- memory_bw: HTA's memory bandwidth over time (get_memory_bw_time_series), as the trace engine's Bandwidth gives it
-- from trace files: per rank and kind of copy (Memset, the first eleven characters of a copy's name, or Memcpy
-- Unknown), the bandwidth in use, a point at each change: a copy adds its GB/s at its start and takes them away at
-- its end (one of no duration lasts 1 us; at one instant ends come first); ts in microseconds since the epoch, pid
-- the device. The work counted and the copies' bandwidth are the trace engine's (counted_work.cte, copies.cte).
WITH ${counted_work},
${copies}
SELECT job_id,
       rank,
       CAST(t AS DOUBLE) / 1000.0 AS ts,
       device_index AS pid,
       copy_kind AS name,
       memory_bw_gbps
FROM bandwidth_points
ORDER BY job_id, rank, name, t, d, event_id
