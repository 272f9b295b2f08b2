-- kernels: HTA's kernel breakdown by name (get_gpu_kernel_breakdown's second table, memory kernels included), as the
-- trace engine's KernelBreakdown gives it from trace files: per rank and kernel type, each kernel name's executions
-- (count, sum, max, min, sample standard deviation, mean of their durations). Within a rank and type, the names are
-- ordered by their time, longest first (then by name); when there are more than 10, a name is summed into one row
-- named 'others' once the running sum of time passes the 0.8 quantile of the running sums (linear interpolation, as
-- pandas takes it) or past the 10th name, as HTA sums them. Types as in kernel_types.sql. Times in microseconds;
-- analyze names the columns as HTA does (sum (us), ...).
-- The work counted is the trace engine's (counted_work.cte).
WITH ${counted_work},
work AS (
    SELECT job_id, rank, name, duration_ns,
           CASE WHEN kind <> 'kernel' THEN 'MEMORY'
                WHEN communication THEN 'COMMUNICATION'
                ELSE 'COMPUTATION' END AS kernel_type
    FROM counted
),
by_name AS (
    -- each name's executions in one read of the work: count, sum, extremes, mean and sum of squared deviations (the
    -- others row merges them by Chan's formula, as the engine does)
    SELECT job_id, rank, kernel_type, name,
           count(*) AS n_name,
           CAST(sum(duration_ns) AS BIGINT) AS sum_ns,
           max(duration_ns) AS max_ns,
           min(duration_ns) AS min_ns,
           avg(CAST(duration_ns AS DOUBLE)) AS mean_ns,
           coalesce(var_samp(CAST(duration_ns AS DOUBLE)), 0.0) * CAST(count(*) - 1 AS DOUBLE) AS m2
    FROM work
    GROUP BY job_id, rank, kernel_type, name
),
ordered AS (
    SELECT job_id, rank, kernel_type, name, n_name, sum_ns, max_ns, min_ns, mean_ns, m2,
           row_number() OVER (PARTITION BY job_id, rank, kernel_type ORDER BY sum_ns DESC, name) - 1 AS i,
           count(*) OVER (PARTITION BY job_id, rank, kernel_type
                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n,
           CAST(sum(sum_ns) OVER (PARTITION BY job_id, rank, kernel_type ORDER BY sum_ns DESC, name
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS DOUBLE) AS cumulative
    FROM by_name
),
bounds AS (
    SELECT job_id, rank, kernel_type, name, n_name, sum_ns, max_ns, min_ns, mean_ns, m2, i, n, cumulative,
           CAST(n - 1 AS DOUBLE) * CAST(0.8 AS DOUBLE) AS at_q,
           CAST(floor(CAST(n - 1 AS DOUBLE) * CAST(0.8 AS DOUBLE)) AS BIGINT) AS lo
    FROM ordered
),
cuts AS (
    SELECT job_id, rank, kernel_type, name, n_name, sum_ns, max_ns, min_ns, mean_ns, m2, i, n, cumulative, at_q, lo,
           max(CASE WHEN i = lo THEN cumulative END)
               OVER (PARTITION BY job_id, rank, kernel_type
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS at_lo,
           max(CASE WHEN i = CASE WHEN lo + 1 < n THEN lo + 1 ELSE n - 1 END THEN cumulative END)
               OVER (PARTITION BY job_id, rank, kernel_type
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS at_hi
    FROM bounds
),
shown AS (
    SELECT job_id, rank, kernel_type, n_name, sum_ns, max_ns, min_ns, mean_ns, m2,
           CASE WHEN n <= 10 THEN name
                WHEN i >= 10 OR cumulative > at_lo + (at_hi - at_lo) * (at_q - CAST(lo AS DOUBLE)) THEN 'others'
                ELSE name END AS shown
    FROM cuts
),
merged AS (
    SELECT job_id, rank, kernel_type, shown, n_name, sum_ns, max_ns, min_ns, mean_ns, m2,
           CAST(sum(sum_ns) OVER (PARTITION BY job_id, rank, kernel_type, shown
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS DOUBLE)
               / CAST(sum(n_name) OVER (PARTITION BY job_id, rank, kernel_type, shown
                                        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS DOUBLE)
               AS mean_shown
    FROM shown
)
SELECT job_id,
       shown AS kernel_name,
       CAST(sum(sum_ns) AS DOUBLE) / 1000.0 AS sum_us,
       CAST(max(max_ns) AS DOUBLE) / 1000.0 AS max_us,
       CAST(min(min_ns) AS DOUBLE) / 1000.0 AS min_us,
       CASE WHEN sum(n_name) < 2 THEN 0.0
            ELSE sqrt(sum(m2 + CAST(n_name AS DOUBLE) * (mean_ns - mean_shown) * (mean_ns - mean_shown))
                      / CAST(sum(n_name) - 1 AS DOUBLE)) END / 1000.0 AS stddev,
       CAST(sum(sum_ns) AS DOUBLE) / CAST(sum(n_name) AS DOUBLE) / 1000.0 AS mean_us,
       kernel_type,
       rank,
       CAST(sum(n_name) AS BIGINT) AS executions
FROM merged
GROUP BY job_id, rank, kernel_type, shown
ORDER BY job_id, kernel_type, kernel_name, rank
