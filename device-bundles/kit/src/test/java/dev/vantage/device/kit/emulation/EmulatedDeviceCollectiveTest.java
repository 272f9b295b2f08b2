package dev.vantage.device.kit.emulation;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Test;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.Device;

/**
 * A collective's transfer runs as a kernel on the device's last stream, linked to the calling op's external
 * correlation id through its runtime record, and a failed transfer comes back as it was thrown.
 */
public class EmulatedDeviceCollectiveTest {

    private final Device npu = new Device("npu", 0);
    private final EmulatedDevice device = new EmulatedDevice(npu, new EmulatedClock(100_000_000, 0, 0),
            new DeviceMemory(npu, 1 << 20, 512, 2 << 20, 0x1000_0000L), 3);

    @After
    public void close() {
        device.close();
    }

    @Test
    public void theTransferIsAKernelOnTheLastStreamLinkedToTheCallersOp() {
        device.enableActivity(1000);
        String[] ranOn = new String[1];
        Map<String, String> args = Map.of("Collective name", "allreduce");
        device.runCollective(42, "HcclAllReduce", "hcom_allReduce__0_0_1", args,
                () -> ranOn[0] = Thread.currentThread().getName());
        assertNotEquals(Thread.currentThread().getName(), ranOn[0]);
        List<ActivityRecord> records = device.flushActivity();
        ActivityRecord kernel = records.stream().filter(r -> r.kind() == EventKind.KERNEL).findFirst().orElseThrow();
        ActivityRecord runtime = records.stream().filter(r -> r.kind() == EventKind.RUNTIME).findFirst()
                .orElseThrow();
        assertEquals("hcom_allReduce__0_0_1", kernel.name());
        assertEquals(device.stream(2).id(), kernel.streamId());
        assertEquals(args, kernel.args());
        assertEquals("HcclAllReduce", runtime.name());
        assertEquals(42, runtime.externalId());
        assertEquals(runtime.correlation(), kernel.correlation());
        assertEquals("the pushed id is popped again", -1, device.externalCorrelation());
    }

    @Test
    public void aFailedTransferIsRethrownAsItWasThrown() {
        IllegalStateException boom = new IllegalStateException("rank 0: allreduce failed: rank 1 closed");
        assertSame(boom, assertThrows(IllegalStateException.class,
                () -> device.runCollective(-1, "HcclAllReduce", "hcom_allReduce__1_0_1", Map.of(), () -> {
                    throw boom;
                })));
        String[] ran = new String[1];
        device.runCollective(-1, "HcclAllReduce", "hcom_allReduce__2_0_1", Map.of(), () -> ran[0] = "yes");
        assertTrue("the stream still runs work after a failed transfer", "yes".equals(ran[0]));
    }

    @Test(timeout = 30_000)
    public void aTransferThatKillsTheCommunicationStreamFailsTheCollectiveWithTheCause() {
        OutOfMemoryError killer = new OutOfMemoryError("Java heap space");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> device.runCollective(-1, "HcclAllReduce", "hcom_allReduce__3_0_1", Map.of(), () -> {
                    throw killer;
                }));
        assertSame(killer, e.getCause());
        assertEquals("npu:0 stream 3 stopped: its worker died of java.lang.OutOfMemoryError: Java heap space",
                e.getMessage());
        // and every later collective on that stream fails at once instead of waiting for it
        assertSame(killer, assertThrows(IllegalStateException.class,
                () -> device.runCollective(-1, "HcclAllReduce", "hcom_allReduce__4_0_1", Map.of(), () -> { }))
                .getCause());
    }
}
