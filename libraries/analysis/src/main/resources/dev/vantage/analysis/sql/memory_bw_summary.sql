-- memory_bw_summary: HTA's memory bandwidth summary (get_memory_bw_summary), as the trace engine's Bandwidth gives
-- it from trace files: per rank and kind of copy, pandas' describe() of the bandwidth series' values above zero
-- (description.cte). The work counted and the copies' bandwidth are the trace engine's (counted_work.cte, copies.cte).
WITH ${counted_work},
${copies},
described AS (
    SELECT job_id, rank, copy_kind AS item, memory_bw_gbps AS value, 0 AS extra
    FROM bandwidth_points
    WHERE memory_bw_gbps > 0
),
${description}
SELECT job_id,
       rank,
       item AS name,
       CAST(n AS BIGINT) AS count,
       mean,
       std,
       min_value,
       q25,
       q50,
       q75,
       max_value
FROM description
ORDER BY job_id, rank, name
