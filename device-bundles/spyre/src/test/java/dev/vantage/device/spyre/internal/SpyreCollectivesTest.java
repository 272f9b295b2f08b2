package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Test;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * A collective on a Spyre tensor runs as an NCCL-named kernel on the card's last stream, carrying the collective's
 * facts and linked to the op that called it through the tracing library's external correlation id.
 */
public class SpyreCollectivesTest {

    private final EmulatedSpyreDriver driver = new EmulatedSpyreDriver(Map.of("capacity.mib", "64"));
    private final SpyreCollectives collectives = new SpyreCollectives(driver);

    @After
    public void close() {
        driver.close();
    }

    private static CollectiveInfo allReduce(long sequence) {
        return new CollectiveInfo(sequence, "allreduce", "nccl", 8, 8, 4, "Float", "0", "default_pg",
                "[0, 1, 2, 3]", 1, Thread.currentThread().getId(), System.nanoTime(), -1);
    }

    @Test
    public void theCollectiveIsAnNcclKernelOnTheLastStreamLinkedToItsOp() {
        Tensor t = Tensor.wrap(driver.malloc(0, DType.FLOAT32, 8), 8);
        driver.enableActivity(1000);
        driver.pushExternalCorrelation(77);
        Object caller;
        try {
            caller = collectives.capture(t);
        } finally {
            driver.popExternalCorrelation();
        }
        String[] ranOn = new String[1];
        collectives.execute(allReduce(0), caller, () -> ranOn[0] = Thread.currentThread().getName());
        assertTrue(ranOn[0], ranOn[0].startsWith("vantage-spyre0-stream-"));
        List<ActivityRecord> records = driver.flushActivity();
        ActivityRecord kernel = records.stream().filter(r -> r.kind() == EventKind.KERNEL).findFirst().orElseThrow();
        ActivityRecord launch = records.stream()
                .filter(r -> r.kind() == EventKind.RUNTIME && r.correlation() == kernel.correlation())
                .findFirst().orElseThrow();
        assertEquals("nccl:all_reduce", kernel.name());
        assertEquals(EmulatedSpyreDriver.API_LAUNCH, launch.name());
        assertEquals(77, launch.externalId());
        assertEquals("allreduce", kernel.args().get("Collective name"));
        assertEquals("[0, 1, 2, 3]", kernel.args().get("Process Group Ranks"));
        int streams = driver.streamCount(0);
        assertTrue("compute uses stream 0; communication the last of " + streams, streams > 1);
        long computeStream = records.stream().filter(r -> r.kind() != EventKind.RUNTIME && r != kernel)
                .mapToLong(ActivityRecord::streamId).findFirst().orElse(-1);
        assertTrue("no other device work was recorded on the communication stream",
                computeStream == -1 || computeStream != kernel.streamId());
    }

    @Test
    public void scopesAndKernelsAreNamedAsNcclNamesThem() {
        assertEquals("nccl", collectives.name());
        assertEquals("all_gather", new CollectiveInfo(0, "allgather", "nccl", 1, 4, 4, "Float", "0",
                "default_pg", "[0, 1, 2, 3]", 0, 1, 0, -1).scopeName());
        assertEquals("reduce_scatter", new CollectiveInfo(0, "reduce_scatter", "nccl", 4, 1, 4, "Float", "0",
                "default_pg", "[0, 1, 2, 3]", 0, 1, 0, -1).scopeName());
    }

    @Test
    public void aFailedTransferComesBackAsItWasThrown() {
        Tensor t = Tensor.wrap(driver.malloc(0, DType.FLOAT32, 8), 8);
        Object caller = collectives.capture(t);
        IllegalStateException boom = new IllegalStateException("rank 1: allreduce failed: rank 2 closed");
        assertSame(boom, assertThrows(IllegalStateException.class, () -> collectives.execute(allReduce(1), caller,
                () -> {
                    throw boom;
                })));
        assertEquals(new Device("spyre", 0), t.device());
    }
}
