-- launch: HTA's kernel launch statistics (get_cuda_kernel_launch_stats), as the trace engine's Launches gives them
-- from trace files: for each piece of device work a launch call started (kernels.flow_id = events.flow_id), the
-- call's duration on the host (cpu_duration), the work's (gpu_duration), and the time from the call's end to the
-- work's start (launch_delay, 0 when the work began first), in microseconds; rows by rank, then the work's start.
-- The work counted and the launches are the trace engine's (counted_work.cte, launches.cte).
WITH ${counted_work},
${launches}
SELECT job_id,
       rank,
       correlation,
       CAST(cpu_ns AS DOUBLE) / 1000.0 AS cpu_duration,
       CAST(gpu_ns AS DOUBLE) / 1000.0 AS gpu_duration,
       CAST(delay_ns AS DOUBLE) / 1000.0 AS launch_delay
FROM launches
ORDER BY job_id, rank, start_ns, correlation
