package dev.vantage.device.npu.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.junit.Test;

/** HCCL's names, and the emulated driver running a collective's transfer on the communication stream. */
public class NpuCollectivesTest {

    @Test
    public void collectivesAreNamedAsHcclNamesThem() {
        assertEquals("allReduce", NpuCollectives.hcom("allreduce"));
        assertEquals("allReduce", NpuCollectives.hcom("barrier"));
        assertEquals("allGather", NpuCollectives.hcom("allgather"));
        assertEquals("reduceScatter", NpuCollectives.hcom("reduce_scatter"));
        assertEquals("broadcast", NpuCollectives.hcom("broadcast"));
    }

    @Test
    public void theTransferRunsOnTheLastStreamAndItsFailureComesBackAsItWasThrown() {
        EmulatedNpuDriver driver = new EmulatedNpuDriver(Map.of("streams", "2"));
        try {
            String[] ranOn = new String[1];
            driver.runCollective(0, -1, "HcclAllReduce", "hcom_allReduce__0_0_1", Map.of(),
                    () -> ranOn[0] = Thread.currentThread().getName());
            assertTrue(ranOn[0], ranOn[0].endsWith("stream-2"));
            IllegalStateException boom = new IllegalStateException("rank 0: allreduce failed: rank 1 closed");
            assertSame(boom, assertThrows(IllegalStateException.class, () -> driver.runCollective(0, -1,
                    "HcclAllReduce", "hcom_allReduce__1_0_1", Map.of(), () -> {
                        throw boom;
                    })));
        } finally {
            driver.close();
        }
    }
}
