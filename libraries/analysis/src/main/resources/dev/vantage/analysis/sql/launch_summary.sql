-- launch_summary: per rank, what HTA's charts of the launch statistics show (see launch.sql): the launches, the
-- short kernels (work that ran shorter than its call, the call within the runtime cut-off), the calls over the
-- runtime cut-off, the delays over the delay cut-off; the cut-offs (microseconds) are analyze's --runtime-cutoff and
-- --launch-delay-cutoff, HTA's 50 and 100 by default. Every rank has its row, 0 launches included.
-- The launch calls are HTA's (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync, MTIA's
-- runFunction), ROCm's counterparts, and any other runtime's call that launched work (the engine's LaunchCalls): a
-- CUDA, driver or HIP call HTA does not list does not count.
-- The work counted is the trace engine's (DeviceWork), as HTA counts it: with two steps or more, the last step is
-- left out, since a capture often ends before its work does: work counts when the runtime call that launched it
-- (events.flow_id = kernels.flow_id) started before the last step did; work whose launch is not in the trace counts
-- only in a rank that records no launch at all, when it started before the last step.
WITH calls AS (
    SELECT job_id, rank, flow_id, name, start_ns, end_ns
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
    SELECT k.job_id, k.rank, k.kind, k.name, k.communication, k.start_ns, k.end_ns, k.duration_ns, k.flow_id,
           c.name AS call_name, c.start_ns AS call_start_ns, c.end_ns AS call_end_ns
    FROM kernels k
    LEFT JOIN calls c ON c.job_id = k.job_id AND c.rank = k.rank AND c.flow_id = k.flow_id
    LEFT JOIN launching l ON l.job_id = k.job_id AND l.rank = k.rank
    LEFT JOIN last_steps s ON s.job_id = k.job_id AND s.rank = k.rank
    WHERE k.kind IN ('kernel', 'gpu_memcpy', 'gpu_memset')
      AND (s.cut_ns IS NULL
           OR (c.start_ns IS NOT NULL AND c.start_ns < s.cut_ns)
           OR (c.start_ns IS NULL AND l.rank IS NULL AND k.start_ns < s.cut_ns))
),
launches AS (
    SELECT job_id, rank, flow_id AS correlation,
           call_end_ns - call_start_ns AS cpu_ns,
           duration_ns AS gpu_ns,
           CASE WHEN start_ns > call_end_ns THEN start_ns - call_end_ns ELSE 0 END AS delay_ns,
           start_ns
    FROM counted
    WHERE call_start_ns IS NOT NULL
      AND (call_name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cudaMemcpyAsync', 'cudaMemsetAsync',
                         'runFunction - job_prep_and_submit_for_execution', 'hipLaunchKernel', 'hipExtLaunchKernel',
                         'hipModuleLaunchKernel', 'hipExtModuleLaunchKernel', 'hipMemcpyAsync', 'hipMemsetAsync')
           OR NOT (lower(call_name) LIKE 'cu%' OR lower(call_name) LIKE 'hip%' OR lower(call_name) LIKE 'runfunction%'))
),
ranks AS (
    SELECT DISTINCT job_id, rank
    FROM events
),
per_rank AS (
    SELECT r.job_id, r.rank,
           count(l.correlation) AS launches,
           sum(CASE WHEN l.cpu_ns <= ${runtime_cutoff_us} * 1000 AND l.gpu_ns < l.cpu_ns THEN 1 ELSE 0 END)
               AS short_kernels,
           sum(CASE WHEN l.cpu_ns > ${runtime_cutoff_us} * 1000 THEN 1 ELSE 0 END) AS runtime_outliers,
           sum(CASE WHEN l.delay_ns > ${launch_delay_cutoff_us} * 1000 THEN 1 ELSE 0 END) AS launch_delay_outliers
    FROM ranks r
    LEFT JOIN launches l ON l.job_id = r.job_id AND l.rank = r.rank
    GROUP BY r.job_id, r.rank
)
SELECT job_id,
       rank,
       CAST(launches AS BIGINT) AS launches,
       CAST(coalesce(short_kernels, 0) AS BIGINT) AS short_kernels,
       CAST(coalesce(runtime_outliers, 0) AS BIGINT) AS runtime_outliers,
       CAST(coalesce(launch_delay_outliers, 0) AS BIGINT) AS launch_delay_outliers,
       CAST(${runtime_cutoff_us} AS BIGINT) AS runtime_cutoff,
       CAST(${launch_delay_cutoff_us} AS BIGINT) AS launch_delay_cutoff
FROM per_rank
ORDER BY job_id, rank
