package dev.vantage.device.mps.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Test;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * A collective on an MPS tensor runs as an NCCL-named kernel in a command buffer of its own on the pool's last
 * stream, carrying the collective's facts and linked to the op that called it.
 */
public class MpsCollectivesTest {

    private final EmulatedMetalDriver driver = new EmulatedMetalDriver(Map.of("streams", "4", "capacity.mib", "64"));
    private final MpsCollectives collectives = new MpsCollectives(driver);

    @After
    public void close() {
        driver.close();
    }

    private static CollectiveInfo broadcast(long sequence) {
        return new CollectiveInfo(sequence, "broadcast", "nccl", 8, 8, 2, "Float", "0", "default_pg", "[0, 1]", 0,
                Thread.currentThread().getId(), System.nanoTime(), -1);
    }

    @Test
    public void theCollectiveIsAnNcclKernelOnTheLastStreamLinkedToItsOp() {
        Tensor t = Tensor.wrap(driver.newBuffer(0, DType.FLOAT32, 8), 8);
        driver.enableActivity(1000);
        driver.pushExternalCorrelation(91);
        Object caller;
        try {
            caller = collectives.capture(t);
        } finally {
            driver.popExternalCorrelation();
        }
        String[] ranOn = new String[1];
        collectives.execute(broadcast(0), caller, () -> ranOn[0] = Thread.currentThread().getName());
        assertNotEquals(Thread.currentThread().getName(), ranOn[0]);
        List<ActivityRecord> records = driver.flushActivity();
        ActivityRecord kernel = records.stream().filter(r -> r.kind() == EventKind.KERNEL).findFirst().orElseThrow();
        ActivityRecord encode = records.stream()
                .filter(r -> r.kind() == EventKind.RUNTIME && r.correlation() == kernel.correlation())
                .findFirst().orElseThrow();
        assertEquals("nccl:broadcast", kernel.name());
        assertEquals(driver.device(0).stream(3).id(), kernel.streamId());
        assertEquals(MetalRecords.DISPATCH, encode.name());
        assertEquals(91, encode.externalId());
        assertEquals("8", kernel.args().get("In msg nelems"));
    }

    @Test
    public void aFailedTransferComesBackAsItWasThrown() {
        Tensor t = Tensor.wrap(driver.newBuffer(0, DType.FLOAT32, 8), 8);
        Object caller = collectives.capture(t);
        IllegalStateException boom = new IllegalStateException("rank 0: broadcast failed: rank 1 closed");
        assertSame(boom, assertThrows(IllegalStateException.class, () -> collectives.execute(broadcast(1), caller,
                () -> {
                    throw boom;
                })));
        String[] ran = new String[1];
        collectives.execute(broadcast(2), caller, () -> ran[0] = "ran");
        assertEquals("the stream runs work after a failed transfer", "ran", ran[0]);
    }
}
