package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Set;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.device.spyre.driver.SpyreKernel;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * A profile's session over the emulated driver: each launch leaves a runtime record on the launching thread and a
 * device record on its stream, joined by the runtime's correlation id and carrying the host op's id that was
 * pushed when the launch was made. Kernels here run a body of the test's own, since this module has no host
 * backend to compute ops with.
 */
public class SpyreSessionTest {

    private EmulatedSpyreDriver driver;
    private SpyreActivitySource source;

    @Before
    public void create() {
        driver = new EmulatedSpyreDriver(Map.of("capacity.mib", "64"));
        source = new SpyreActivitySource(driver);
    }

    @After
    public void close() {
        driver.close();
    }

    @Test
    public void declinesWhenSpyreIsNotRequested() {
        assertNull(source.configure(Set.of(Activity.CPU, Activity.MEM), Map.of()));
    }

    @Test
    public void linksEachLaunchToItsWorkAndToTheOpThatLaunchedIt() {
        Storage storage = driver.malloc(0, DType.FLOAT32, 64);
        Tensor t = Tensor.wrap(storage, 8, 8);
        SpyreKernel kernel = SpyreKernels.kernel(KernelOps.RELU,
                new KernelCall(KernelOps.RELU, new Tensor[] {t}, new Tensor[] {t}, null, null));
        SpyreBackend backend = new SpyreBackend(driver);
        AtomicReference<String> ranOn = new AtomicReference<>();

        ActivitySession session = source.configure(Set.of(Activity.CPU, Activity.SPYRE), Map.of());
        assertNotNull(session);
        session.start();
        session.pushCorrelation(41);
        driver.launchBody(0, 0, kernel, new Tensor[] {t}, new Tensor[] {t}, () -> {
            ranOn.set(Thread.currentThread().getName());
            Arrays.fill(storage.floats(), 1f);
        });
        session.popCorrelation();
        driver.setCurrentStream(0, 2);
        session.pushCorrelation(42);
        SpyreBackendTest.kernels(backend).get(KernelOps.ZERO_)
                .run(new KernelCall(KernelOps.ZERO_, new Tensor[] {t}, new Tensor[] {t}, null, null));
        session.popCorrelation();
        backend.synchronize(new Device("spyre", 0));
        session.stop();
        DeviceActivities d = session.collect();

        assertEquals("the kernel ran on the default stream's worker (traces number streams from 1)",
                "vantage-spyre0-stream-1", ranOn.get());
        assertArrayEquals("the memset on stream index 2 waited for the kernel on the default stream that wrote the block",
                new float[64], storage.floats(), 0f);

        DeviceActivity launch = only(d, EmulatedSpyreDriver.API_LAUNCH);
        DeviceActivity work = only(d, kernel.name());
        assertEquals(EventKind.RUNTIME, launch.kind());
        assertEquals(EventKind.KERNEL, work.kind());
        assertEquals(41, launch.correlationId());
        assertEquals(41, work.correlationId());
        assertEquals(launch.flowId(), work.flowId());
        assertTrue(work.flowId() > 0);
        assertEquals(Thread.currentThread().getId(), launch.launchThreadId());
        assertEquals("the default stream, 1 in traces", 1, work.streamId());
        assertTrue("kernel starts " + (launch.startNanos() - work.startNanos()) + " ns before its launch",
                work.startNanos() >= launch.startNanos());
        assertEquals(kernel.provenanceKey(), work.args().get("provenance_key"));

        DeviceActivity memsetCall = only(d, EmulatedSpyreDriver.API_MEMSET);
        DeviceActivity memset = only(d, "Memset (Device)");
        assertEquals(EventKind.GPU_MEMSET, memset.kind());
        assertEquals(42, memsetCall.correlationId());
        assertEquals(42, memset.correlationId());
        assertEquals(memsetCall.flowId(), memset.flowId());
        assertEquals("the thread's current stream, index 2, 3 in traces", 3, memset.streamId());
        assertEquals("256", memset.args().get("bytes"));

        assertEquals(4, d.activities().size());
        assertEquals(0, d.droppedRecords());
        assertEquals("true", d.metadata().get("emulated"));
        assertTrue(d.metadata().get("tracing_library"), d.metadata().get("tracing_library").contains("libaiupti"));
        assertEquals("spyre", d.devices().get(0).type());
        assertEquals(List.of(), d.errors());
    }

    @Test
    public void aFullBufferDropsAndCountsRecords() {
        Storage storage = driver.malloc(0, DType.FLOAT32, 16);
        Tensor t = Tensor.wrap(storage, 16);
        ActivitySession session = source.configure(Set.of(Activity.SPYRE), Map.of("device_buffer_records", "3"));
        session.start();
        for (int i = 0; i < 5; i++) {
            driver.memsetAsync(0, 0, new KernelCall(KernelOps.FILL_, new Tensor[] {t}, new Tensor[] {t},
                    new double[] {i}, null));
        }
        session.stop();
        DeviceActivities d = session.collect();
        assertEquals("3", d.metadata().get("records"));
        assertEquals("7", d.metadata().get("buffer_dropped_records"));
        assertTrue(d.errors().toString(), d.errors().get(0).contains("dropped"));
        assertEquals(4f, storage.floats()[15], 0f);
    }

    @Test
    public void memsetTakesOnlyFills() {
        Tensor t = Tensor.wrap(driver.malloc(0, DType.FLOAT32, 4), 4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> driver.memsetAsync(0, 0,
                new KernelCall(KernelOps.RELU, new Tensor[] {t}, new Tensor[] {t}, null, null)));
        assertTrue(e.getMessage(), e.getMessage().contains(KernelOps.RELU));
    }

    @Test
    public void aStreamTheDeviceLacksIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> driver.setCurrentStream(0, 4));
        assertTrue(e.getMessage(), e.getMessage().contains("spyre:0 has no stream 4; it has 4"));
    }

    private static DeviceActivity only(DeviceActivities d, String name) {
        List<DeviceActivity> found = new ArrayList<>();
        for (DeviceActivity a : d.activities()) {
            if (a.name().equals(name)) {
                found.add(a);
            }
        }
        assertEquals(name + " in " + d.activities(), 1, found.size());
        return found.get(0);
    }
}
