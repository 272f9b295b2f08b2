-- HTA's frequent kernel sequences under an operator (get_frequent_cuda_kernel_sequences), as the trace engine's
-- Sequences gives them from trace files: per rank, the roots are the ops and annotations (ProfilerStep#N spans among
-- them) whose name contains ${operator}, started before the last step, at the shallowest depth any of them is found at;
-- a root's pattern is its name and the names of the counted work whose launch call ran inside it on its thread, in the
-- order the work started; a root with fewer than ${min_pattern_length} pieces of work gives none. Equal patterns are
-- one row: how many roots gave it, their work's time and their own time, in microseconds.
-- Depths are HTA's: an event is as deep as the ops and annotations of its thread that hold it (a step among them); when
-- a rank has one thread with steps (the main thread) and one other thread with autograd:: events (the backward
-- thread), an outermost event of the backward thread held by a ## backward ## annotation of the main thread (by a step
-- of it when there is no such annotation) sits one below that parent, with everything inside it, and the work launched
-- inside it belongs to the main thread's root that holds it.
-- ${pattern} is the dialect's ordered string aggregate: the work's names joined with | in start order (Query puts
-- DuckDB's or Spark's spelling in its place; the shared SQL has none).
-- Every "the last X to start at or before Y" is a running count of the X rows in time order (a group per X) and a
-- value of the X row read across its group, never a join of time ranges; and each common table expression past pairs
-- is read once, so that neither engine evaluates or keeps one twice (Spark inlines a CTE at each reference).
WITH ${counted_work},
-- the host events the roles, the roots and the parents are found among: ops and annotations before the cut, named
-- like a step, an autograd:: op, a backward annotation or the operator
marked AS (
    SELECT e.job_id, e.rank, e.event_id, e.name, e.thread_id, e.start_ns, e.end_ns,
           CASE WHEN e.kind = 'user_annotation' AND instr(e.name, 'ProfilerStep#') = 1 THEN 1 ELSE 0 END AS is_step,
           CASE WHEN instr(e.name, 'autograd::') > 0 THEN 1 ELSE 0 END AS is_autograd,
           CASE WHEN instr(e.name, '## backward ##') = 1 THEN 1 ELSE 0 END AS is_backward,
           CASE WHEN instr(e.name, '${operator}') > 0 THEN 1 ELSE 0 END AS is_candidate
    FROM events e
    LEFT JOIN last_steps s ON s.job_id = e.job_id AND s.rank = e.rank
    WHERE e.thread_id <> -1 AND (s.cut_ns IS NULL OR e.start_ns < s.cut_ns)
      AND (instr(e.name, 'ProfilerStep#') = 1 OR instr(e.name, 'autograd::') > 0
           OR instr(e.name, '## backward ##') = 1 OR instr(e.name, '${operator}') > 0)
      AND e.kind IN ('cpu_op', 'user_annotation')
),
-- per rank: the one thread with steps and the one other thread with autograd:: events, when there is one of each
thread_roles AS (
    SELECT job_id, rank, thread_id, max(is_step) AS has_steps, max(is_autograd) AS has_autograd
    FROM marked
    GROUP BY job_id, rank, thread_id
),
pairs AS (
    SELECT job_id, rank,
           max(CASE WHEN has_steps = 1 THEN thread_id END) AS main_thread,
           max(CASE WHEN has_steps = 0 AND has_autograd = 1 THEN thread_id END) AS backward_thread
    FROM thread_roles
    GROUP BY job_id, rank
    HAVING sum(has_steps) = 1 AND sum(CASE WHEN has_steps = 0 AND has_autograd = 1 THEN 1 ELSE 0 END) = 1
),
-- the spans a rank's depths are counted from: its candidates, its main thread's backward annotations and steps
spans AS (
    SELECT m.job_id, m.rank, m.event_id, m.name, m.is_step, m.is_backward, m.is_candidate,
           CASE WHEN m.thread_id = p.main_thread THEN 1 ELSE 0 END AS on_main
    FROM marked m
    LEFT JOIN pairs p ON p.job_id = m.job_id AND p.rank = m.rank
    WHERE m.is_candidate = 1 OR (m.thread_id = p.main_thread AND (m.is_step = 1 OR m.is_backward = 1))
),
-- every host event's depth on its thread: the ops and annotations that start before it (the earlier of two that start
-- together first) and have not ended by then, from running counts over the thread's starts and ends in time order. An
-- event that ends as another starts does not hold it, unless that one lasts no time: a zero-length event holds what
-- ends where it is, and sits inside what ends there. Runtime calls hold nothing but have a depth (0: outermost).
points AS (
    SELECT job_id, rank, thread_id, event_id, start_ns AS t, end_ns,
           CASE WHEN kind IN ('cpu_op', 'user_annotation') THEN 1 ELSE 0 END AS d,
           CASE WHEN end_ns = start_ns THEN 1 ELSE 0 END AS zero
    FROM events
    WHERE thread_id <> -1 AND kind <> 'gc'
    UNION ALL
    SELECT job_id, rank, thread_id, event_id, end_ns, end_ns, -1, CASE WHEN end_ns = start_ns THEN 1 ELSE 0 END
    FROM events
    WHERE kind IN ('cpu_op', 'user_annotation') AND thread_id <> -1
),
swept AS (
    SELECT job_id, rank, thread_id, event_id, t AS start_ns, end_ns,
           CASE WHEN zero = 1
                THEN coalesce(sum(d) OVER (PARTITION BY job_id, rank, thread_id
                                           ORDER BY t, CASE WHEN d >= 0 THEN 1 ELSE 2 END, event_id
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                ELSE coalesce(sum(d) OVER (PARTITION BY job_id, rank, thread_id
                                           ORDER BY t, CASE WHEN d >= 0 THEN 1 ELSE 0 END, event_id
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                     + coalesce(sum(CASE WHEN d = 1 THEN zero ELSE 0 END)
                                OVER (PARTITION BY job_id, rank, thread_id, t, CASE WHEN d >= 0 THEN 1 ELSE 0 END
                                      ORDER BY event_id ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING), 0)
           END AS depth, d
    FROM points
),
-- the rows the rest needs, each once: the spans with their depth (a step's is 0) and, on the backward thread, its
-- outermost events before the cut (the candidates for a parent on the main thread)
placed AS (
    SELECT w.job_id, w.rank, w.thread_id, w.event_id, w.start_ns, w.end_ns, sp.name,
           CASE WHEN sp.is_step = 1 THEN 0 ELSE w.depth END AS depth,
           coalesce(sp.is_step, 0) AS is_step, coalesce(sp.is_backward, 0) AS is_backward,
           coalesce(sp.is_candidate, 0) AS is_candidate, coalesce(sp.on_main, 0) AS on_main,
           CASE WHEN w.thread_id = p.backward_thread AND w.depth = 0
                     AND (s.cut_ns IS NULL OR w.start_ns < s.cut_ns) THEN 1 ELSE 0 END AS is_outer,
           p.main_thread, p.backward_thread
    FROM swept w
    LEFT JOIN spans sp ON sp.job_id = w.job_id AND sp.rank = w.rank AND sp.event_id = w.event_id
    LEFT JOIN pairs p ON p.job_id = w.job_id AND p.rank = w.rank
    LEFT JOIN last_steps s ON s.job_id = w.job_id AND s.rank = w.rank
    WHERE w.d >= 0 AND (sp.event_id IS NOT NULL OR (w.thread_id = p.backward_thread AND w.depth = 0))
),
-- the parents of the backward thread's outermost events: the main thread's backward annotations, else its steps
parents AS (
    SELECT job_id, rank, thread_id, event_id, start_ns, end_ns, name, depth, is_candidate, is_outer, main_thread,
           backward_thread,
           CASE WHEN on_main = 1 AND ((annotated = 1 AND is_backward = 1) OR (annotated = 0 AND is_step = 1))
                THEN 1 ELSE 0 END AS is_parent
    FROM (
        SELECT placed.*, max(on_main * is_backward) OVER (PARTITION BY job_id, rank ORDER BY event_id
                                                          ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)
                         AS annotated
        FROM placed
    ) x
),
-- each outermost event with the last parent to start at or before it: a linked top when the parent holds it
parent_groups AS (
    SELECT parents.*,
           sum(is_parent) OVER (PARTITION BY job_id, rank ORDER BY start_ns, is_parent DESC, event_id
                                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS parent_group
    FROM parents
),
topped AS (
    SELECT job_id, rank, thread_id, event_id, start_ns, end_ns, name, depth, is_candidate, main_thread,
           backward_thread,
           CASE WHEN is_outer = 1 AND parent_group > 0 AND end_ns <= parent_end THEN parent_depth END AS top_depth
    FROM (
        SELECT parent_groups.*,
               max(CASE WHEN is_parent = 1 THEN end_ns END) OVER (PARTITION BY job_id, rank, parent_group
                   ORDER BY event_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS parent_end,
               max(CASE WHEN is_parent = 1 THEN depth END) OVER (PARTITION BY job_id, rank, parent_group
                   ORDER BY event_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS parent_depth
        FROM parent_groups
    ) x
    WHERE is_candidate = 1 OR (is_outer = 1 AND parent_group > 0 AND end_ns <= parent_end)
),
-- a candidate of the backward thread inside a linked top (the last to start at or before it) sits below its parent
top_groups AS (
    SELECT topped.*,
           sum(CASE WHEN top_depth IS NOT NULL THEN 1 ELSE 0 END) OVER (PARTITION BY job_id, rank, thread_id
               ORDER BY start_ns, event_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS top_group
    FROM topped
),
deepened AS (
    SELECT job_id, rank, thread_id, event_id, start_ns, end_ns, name, is_candidate, top_depth, main_thread,
           backward_thread,
           CASE WHEN top_group > 0 AND end_ns <= top_end THEN depth + group_depth + 1 ELSE depth END AS depth
    FROM (
        SELECT top_groups.*,
               max(CASE WHEN top_depth IS NOT NULL THEN end_ns END) OVER (PARTITION BY job_id, rank, thread_id,
                   top_group ORDER BY event_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS top_end,
               max(top_depth) OVER (PARTITION BY job_id, rank, thread_id, top_group ORDER BY event_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS group_depth
        FROM top_groups
    ) x
),
-- the roots: the candidates at the rank's shallowest depth; and the linked tops
rooted AS (
    SELECT job_id, rank, thread_id, event_id, start_ns, end_ns, name, main_thread, backward_thread,
           CASE WHEN is_candidate = 1 AND depth = min_depth THEN 1 ELSE 0 END AS is_root,
           CASE WHEN top_depth IS NOT NULL THEN 1 ELSE 0 END AS is_top
    FROM (
        SELECT deepened.*, min(CASE WHEN is_candidate = 1 THEN depth END) OVER (PARTITION BY job_id, rank
                   ORDER BY event_id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS min_depth
        FROM deepened
    ) x
),
-- where a launch call makes its work a root's: the last root of its thread to start at or before the call, if it
-- ends at or after the call; else, on the backward thread, the last linked top likewise, for the main thread's root
-- that was the last to start at or before the top and holds it. A root that is also a linked top is a root: a call
-- it does not hold, no top at or before the call holds either. Phases at one time: roots, tops, calls.
launch_points AS (
    SELECT job_id, rank, CASE WHEN is_root = 1 THEN thread_id ELSE main_thread END AS lookup_thread,
           thread_id AS own_thread, start_ns AS t, end_ns, CASE WHEN is_root = 1 THEN 0 ELSE 1 END AS phase,
           event_id AS id, name, CAST(NULL AS BIGINT) AS work_start_ns, CAST(NULL AS BIGINT) AS work_ns,
           CASE WHEN is_root = 1 THEN end_ns - start_ns END AS host_ns
    FROM rooted
    WHERE is_root = 1 OR (is_top = 1 AND main_thread IS NOT NULL)
    UNION ALL
    SELECT job_id, rank, call_thread_id, call_thread_id, call_start_ns, call_end_ns, 2, event_id, name, start_ns,
           duration_ns, CAST(NULL AS BIGINT)
    FROM counted
    WHERE call_start_ns IS NOT NULL
),
root_groups AS (
    SELECT launch_points.*,
           sum(CASE WHEN phase = 0 THEN 1 ELSE 0 END) OVER (PARTITION BY job_id, rank, lookup_thread
               ORDER BY t, phase, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS root_group
    FROM launch_points
),
direct AS (
    SELECT job_id, rank, own_thread, t, end_ns, phase, id, name, work_start_ns, work_ns, host_ns,
           CASE WHEN phase > 0 AND root_group > 0 AND end_ns <= root_end THEN root_id END AS root_id
    FROM (
        SELECT root_groups.*,
               max(CASE WHEN phase = 0 THEN end_ns END) OVER (PARTITION BY job_id, rank, lookup_thread, root_group
                   ORDER BY phase, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS root_end,
               max(CASE WHEN phase = 0 THEN id END) OVER (PARTITION BY job_id, rank, lookup_thread, root_group
                   ORDER BY phase, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS root_id
        FROM root_groups
    ) x
),
linked_groups AS (
    SELECT direct.*,
           sum(CASE WHEN phase = 1 THEN 1 ELSE 0 END) OVER (PARTITION BY job_id, rank, own_thread
               ORDER BY t, phase, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS top_group
    FROM direct
),
held AS (
    SELECT job_id, rank, phase, name, host_ns,
           CASE WHEN phase = 0 THEN id WHEN root_id IS NOT NULL THEN root_id
                WHEN top_group > 0 AND end_ns <= top_end THEN top_root END AS root_id,
           CASE WHEN phase = 2 THEN name END AS work_name, work_start_ns, CASE WHEN phase = 2 THEN id END AS work_id,
           work_ns
    FROM (
        SELECT linked_groups.*,
               max(CASE WHEN phase = 1 THEN end_ns END) OVER (PARTITION BY job_id, rank, own_thread, top_group
                   ORDER BY phase, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS top_end,
               max(CASE WHEN phase = 1 THEN root_id END) OVER (PARTITION BY job_id, rank, own_thread, top_group
                   ORDER BY phase, id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS top_root
        FROM linked_groups
    ) x
    WHERE phase <> 1
),
patterns AS (
    SELECT h.job_id, h.rank, concat(max(CASE WHEN h.phase = 0 THEN h.name END), '|', ${pattern}) AS pattern,
           CAST(sum(h.work_ns) AS BIGINT) AS device_ns, max(h.host_ns) AS host_ns
    FROM held h
    WHERE h.root_id IS NOT NULL
    GROUP BY h.job_id, h.rank, h.root_id
    HAVING sum(CASE WHEN h.phase = 2 THEN 1 ELSE 0 END) >= ${min_pattern_length}
)
SELECT job_id, rank, '${operator}' AS operator, pattern, count(*) AS patterns,
       CAST(sum(device_ns) AS DOUBLE) / 1000.0 AS device_us, CAST(sum(host_ns) AS DOUBLE) / 1000.0 AS host_us
FROM patterns
GROUP BY job_id, rank, pattern
ORDER BY job_id, rank, patterns DESC, pattern
