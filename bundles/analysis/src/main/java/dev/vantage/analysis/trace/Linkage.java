package dev.vantage.analysis.trace;

/**
 * Which host operator launched each runtime call and each piece of device work, whichever way the trace links
 * them. Kineto has written two linkages:
 * <ul>
 * <li>since about 2023 (and in torch 1.8/1.9 traces, as {@code external id}): device work and its runtime call
 *     carry the launching operator's {@code External id}; the runtime call and the work share {@code correlation};</li>
 * <li>in 2021-2022 traces: the work's and the runtime call's {@code External id} is their {@code correlation}; the
 *     operator is the innermost operator on the runtime call's thread whose span holds the call's start.</li>
 * </ul>
 * The rule here gives both the same answer: device work goes to its runtime call by {@code correlation} (CUDA's
 * {@code cudaLaunchKernel}, ROCm's {@code hipLaunchKernel}, driver calls alike), and a runtime call to the operator
 * its {@code External id} names when that id is an operator's and differs from the call's correlation (it can run
 * on another thread, as a collective's), else to the innermost operator holding its start on its thread. Device work
 * without a runtime call in the trace goes to the operator its own {@code External id} names (again when that is not
 * its correlation); the legacy format's work to the innermost operator holding its flow's start. Operators are
 * named by a global id, {@code thread << 32 | row}.
 */
final class Linkage {

    static final long NONE = -1;

    private final TraceColumns t;
    /** By External id: the operator that has it. */
    private final LongLongMap opByExternal;
    /** By runtime call (global id): its operator. */
    final LongLongMap opOfRuntime;
    /** By device row: its operator, or {@link #NONE}. */
    final LongColumn opOfDevice;
    /** Per thread: the events in nesting order, computed once. */
    final IntColumn[] order;

    Linkage(TraceColumns columns) {
        this.t = columns;
        opByExternal = new LongLongMap(t.store);
        opOfRuntime = new LongLongMap(t.store);
        int threads = t.threads.size();
        order = new IntColumn[threads];
        for (int th = 0; th < threads; th++) {
            EventColumns c = t.threads.get(th);
            order[th] = c.nestingOrder();
            for (int i = 0; i < c.size; i++) {
                if (c.kind.get(i) == EventColumns.OP && c.externalId.get(i) != Long.MIN_VALUE) {
                    opByExternal.put(c.externalId.get(i), id(th, i));
                }
            }
        }
        // legacy launch points: flow id -> (thread, time), answered in the nesting pass of their thread
        LongList[] flowQueries = new LongList[threads];
        EventColumns d = t.device;
        opOfDevice = LongColumn.filled(t.store, d.size, NONE);
        for (int th = 0; th < threads; th++) {
            innermost(th, null);
        }
        LongLongMap runtimeOfCorrelation = new LongLongMap(t.store);
        for (int th = 0; th < threads; th++) {
            EventColumns c = t.threads.get(th);
            for (int i = 0; i < c.size; i++) {
                if ((c.kind.get(i) == EventColumns.RUNTIME || c.kind.get(i) == EventColumns.DRIVER)
                        && c.correlation.get(i) != Long.MIN_VALUE) {
                    runtimeOfCorrelation.put(c.correlation.get(i), id(th, i));
                }
            }
        }
        for (int i = 0; i < d.size; i++) {
            long op = NONE;
            long corr = d.correlation.get(i);
            long runtime = runtimeOfCorrelation.get(corr, NONE);
            if (runtime != NONE) {
                op = opOfRuntime.get(runtime, NONE);
            } else if (d.externalId.get(i) != Long.MIN_VALUE && d.externalId.get(i) != corr) {
                op = opByExternal.get(d.externalId.get(i), NONE);
            } else if (corr != Long.MIN_VALUE && t.flowThread.get(corr, NONE) != NONE) {
                int th = (int) t.flowThread.get(corr, NONE);
                if (flowQueries[th] == null) {
                    flowQueries[th] = new LongList();
                }
                flowQueries[th].add(t.flowTime.get(corr, 0));
                flowQueries[th].add(i);
            }
            opOfDevice.set(i, op);
        }
        for (int th = 0; th < threads; th++) {
            if (flowQueries[th] != null) {
                innermost(th, flowQueries[th]);
            }
        }
    }

    static long id(int thread, int row) {
        return ((long) thread << 32) | row;
    }

    static int thread(long id) {
        return (int) (id >>> 32);
    }

    static int row(long id) {
        return (int) id;
    }

    /**
     * One pass over a thread's events in nesting order, keeping the stack of operators: with {@code queries} null,
     * resolves the thread's runtime calls; else answers the queries (pairs of time and device row, any order) with
     * the innermost operator holding each time.
     */
    private void innermost(int th, LongList queries) {
        EventColumns c = t.threads.get(th);
        IntColumn ord = order[th];
        int[] stack = new int[32];
        int depth = 0;
        long[] q = null;
        int qi = 0;
        int qn = 0;
        if (queries != null) {
            qn = queries.size() / 2;
            q = new long[qn * 2];
            Integer[] idx = new Integer[qn];
            for (int k = 0; k < qn; k++) {
                idx[k] = k;
            }
            java.util.Arrays.sort(idx, (x, y) -> Long.compare(queries.get(2 * x), queries.get(2 * y)));
            for (int k = 0; k < qn; k++) {
                q[2 * k] = queries.get(2 * idx[k]);
                q[2 * k + 1] = queries.get(2 * idx[k] + 1);
            }
        }
        for (int n = 0; n < ord.size(); n++) {
            int i = ord.get(n);
            long start = c.start.get(i);
            long end = start + c.duration.get(i);
            if (q != null) {
                while (qi < qn && q[2 * qi] < start) {
                    depth = answer(c, stack, depth, q[2 * qi], (int) q[2 * qi + 1], th);
                    qi++;
                }
            }
            while (depth > 0 && end > c.start.get(stack[depth - 1]) + c.duration.get(stack[depth - 1])) {
                depth--;
            }
            byte kind = c.kind.get(i);
            if (kind == EventColumns.RUNTIME || kind == EventColumns.DRIVER) {
                if (q == null) {
                    long ext = c.externalId.get(i);
                    long op = ext != Long.MIN_VALUE && ext != c.correlation.get(i) ? opByExternal.get(ext, NONE) : NONE;
                    if (op == NONE && depth > 0) {
                        op = id(th, stack[depth - 1]);
                    }
                    if (op != NONE) {
                        opOfRuntime.put(id(th, i), op);
                    }
                }
                continue;
            }
            if (kind != EventColumns.OP) {
                continue;
            }
            if (depth == stack.length) {
                stack = java.util.Arrays.copyOf(stack, depth * 2);
            }
            stack[depth++] = i;
        }
        while (q != null && qi < qn) {
            depth = answer(c, stack, depth, q[2 * qi], (int) q[2 * qi + 1], th);
            qi++;
        }
    }

    private int answer(EventColumns c, int[] stack, int depth, long time, int deviceRow, int th) {
        while (depth > 0 && c.start.get(stack[depth - 1]) + c.duration.get(stack[depth - 1]) < time) {
            depth--;
        }
        opOfDevice.set(deviceRow, depth > 0 ? id(th, stack[depth - 1]) : NONE);
        return depth;
    }
}
