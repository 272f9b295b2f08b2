-- launch: HTA's kernel launch statistics (get_cuda_kernel_launch_stats), as the trace engine's Launches gives them
-- from trace files: for each piece of device work a launch call started (kernels.flow_id = events.flow_id), the
-- call's duration on the host (cpu_duration), the work's (gpu_duration), and the time from the call's end to the
-- work's start (launch_delay, 0 when the work began first), in microseconds; rows by rank, then the work's start.
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
)
SELECT job_id,
       rank,
       correlation,
       CAST(cpu_ns AS DOUBLE) / 1000.0 AS cpu_duration,
       CAST(gpu_ns AS DOUBLE) / 1000.0 AS gpu_duration,
       CAST(delay_ns AS DOUBLE) / 1000.0 AS launch_delay
FROM launches
ORDER BY job_id, rank, start_ns, correlation
