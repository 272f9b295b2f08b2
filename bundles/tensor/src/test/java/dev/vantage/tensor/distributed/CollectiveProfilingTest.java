package dev.vantage.tensor.distributed;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.tensor.Tensor;

/** What a profiler sees of collectives: the scopes torch opens, and the details through CollectiveEvents. */
public class CollectiveProfilingTest {

    private final List<String> entered = Collections.synchronizedList(new ArrayList<>());
    private final List<OpCall> comms = Collections.synchronizedList(new ArrayList<>());
    private final List<OpCall> scopes = Collections.synchronizedList(new ArrayList<>());
    private final List<CollectiveInfo> started = Collections.synchronizedList(new ArrayList<>());
    private final List<CollectiveInfo> completed = Collections.synchronizedList(new ArrayList<>());
    private final List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    private final CollectiveListener listener = new CollectiveListener() {
        @Override
        public void started(CollectiveInfo info) {
            started.add(info);
        }

        @Override
        public void completed(CollectiveInfo info, Throwable failure) {
            completed.add(info);
            failures.add(failure);
        }
    };
    private Object token;

    @Before
    public void listen() {
        token = Dispatch.claim((h, e) -> {
            throw new AssertionError("hook failed", e);
        });
        Dispatch.publish(token, new DispatchHook[] {new DispatchHook() {
            private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);

            @Override
            public long onEnter(OpCall call) {
                entered.add(Thread.currentThread().getName() + "|" + depth.get()[0]++ + "|" + call.name());
                if (call.name().equals("record_param_comms")) {
                    comms.add(call);
                } else if (call.name().startsWith("gloo:")) {
                    scopes.add(call);
                }
                return 0;
            }

            @Override
            public void onExit(OpCall call, long handle) {
                depth.get()[0]--;
            }
        }});
        CollectiveEvents.addListener(listener);
    }

    @After
    public void stop() {
        CollectiveEvents.removeListener(listener);
        Dispatch.release(token);
    }

    @Test(timeout = 60_000)
    public void collectivesOpenRecordParamCommsAroundTheBackendScopeAndReportTheirDetails() throws Exception {
        try (Ranks ranks = Ranks.start(2, Duration.ofSeconds(20))) {
            ranks.each(g -> {
                Thread.currentThread().setName("rank" + g.rank());
                g.allReduce(Tensor.of(new float[] {1, 2, 3}, 3), ReduceOp.SUM);
                List<Tensor> out = List.of(Tensor.of(new float[3], 3), Tensor.of(new float[3], 3));
                g.allGatherAsync(out, Tensor.of(new float[] {1, 1, 1}, 3)).await();
                g.barrier();
                return null;
            });
        }
        List<String> rank0 = entered.stream().filter(s -> s.startsWith("rank0|")).toList();
        assertEquals(List.of("rank0|0|record_param_comms", "rank0|1|gloo:all_reduce",
                "rank0|0|record_param_comms", "rank0|1|gloo:all_gather",
                "rank0|0|record_param_comms", "rank0|1|gloo:barrier"), rank0);

        // record_param_comms is a cpu_op carrying the collective's facts, as torch's
        OpCall allGather = comms.stream().filter(c -> "allgather".equals(c.args().get("Collective name")))
                .findFirst().orElseThrow();
        assertEquals(dev.vantage.profiler.dispatch.CallKind.OP, allGather.kind());
        assertEquals("3", allGather.args().get("In msg nelems"));
        assertEquals("6", allGather.args().get("Out msg nelems"));
        assertEquals("2", allGather.args().get("Group size"));
        assertEquals("Float", allGather.args().get("dtype"));
        assertEquals("[0, 1]", allGather.args().get("Process Group Ranks"));
        assertEquals("default_pg", allGather.args().get("Process Group Description"));
        assertEquals(6, comms.size());
        // and the tensor it sends as its input, for the communication's size (Input Dims, Input type)
        assertEquals(1, allGather.inputCount());
        assertArrayEquals(new long[] {3}, allGather.inputShape(0));
        assertEquals("float", allGather.inputType(0));
        // the backend's scope carries the same input: the TensorBoard plugin sizes communication by gloo:*/nccl:*
        OpCall gatherScope = scopes.stream().filter(c -> c.name().equals("gloo:all_gather")).findFirst().orElseThrow();
        assertEquals(dev.vantage.profiler.dispatch.CallKind.USER_ANNOTATION, gatherScope.kind());
        assertEquals(1, gatherScope.inputCount());
        assertArrayEquals(new long[] {3}, gatherScope.inputShape(0));
        assertEquals("float", gatherScope.inputType(0));
        OpCall reduceScope = scopes.stream().filter(c -> c.name().equals("gloo:all_reduce")).findFirst().orElseThrow();
        assertArrayEquals(new long[] {3}, reduceScope.inputShape(0));
        OpCall barrier = comms.stream().filter(c -> "barrier".equals(c.args().get("Collective name")))
                .findFirst().orElseThrow();
        assertEquals(0, barrier.inputCount());

        assertEquals(6, completed.size());
        assertEquals(6, started.size());
        failures.forEach(f -> assertNull(f));
        CollectiveInfo gather = completed.stream().filter(i -> i.rank() == 1 && i.collective().equals("allgather"))
                .findFirst().orElseThrow();
        assertEquals(1, gather.sequenceNumber());
        assertEquals("gloo", gather.backend());
        assertEquals(3, gather.inNelems());
        assertEquals(6, gather.outNelems());
        assertEquals(2, gather.groupSize());
        assertEquals("Float", gather.dtype());
        assertEquals("0", gather.processGroupName());
        assertEquals("default_pg", gather.processGroupDescription());
        assertEquals("[0, 1]", gather.processGroupRanks());
        assertTrue(gather.endNanos() >= gather.startNanos());
        assertTrue(started.stream().allMatch(i -> i.endNanos() == -1));
    }
}
