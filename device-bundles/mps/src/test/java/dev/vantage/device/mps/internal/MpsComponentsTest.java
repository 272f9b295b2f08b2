package dev.vantage.device.mps.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.device.mps.driver.KernelPath;
import dev.vantage.device.mps.driver.MetalKernel;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.device.mps.driver.SyncType;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backends;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/** The backend, activity source and allocator over the emulated driver, without the host backend. */
public class MpsComponentsTest {

    private EmulatedMetalDriver driver;

    @Before
    public void create() {
        driver = new EmulatedMetalDriver(Map.of("capacity.mib", "64", "commit.commands", "2"));
    }

    @After
    public void close() {
        driver.close();
    }

    @Test
    public void theBackendRegistersEveryOpUnderTheMpsKey() {
        MpsBackend backend = new MpsBackend(driver);
        assertEquals("mps", backend.deviceType());
        assertEquals(DispatchKey.MPS, backend.dispatchKey());
        assertTrue(backend.emulated());
        assertEquals(1, backend.deviceCount());
        // every op once (a name registered twice or not declared is refused)
        assertEquals(new TreeSet<>(KernelOps.ALL), Backends.kernelsOf(backend));
    }

    @Test
    public void theBackendAllocatesOnlyOnItsDeviceAndTheAllocatorCountsIt() {
        MpsBackend backend = new MpsBackend(driver);
        MpsAllocator allocator = new MpsAllocator(driver);
        assertEquals("mps:0", allocator.device());
        long before = allocator.stats().values().get("allocated_bytes.all.current");
        Storage s = backend.allocate(new Device("mps", 0), DType.FLOAT32, 1000);
        assertEquals(new Device("mps", 0), s.device());
        assertEquals(before + 4096, (long) allocator.stats().values().get("allocated_bytes.all.current"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.allocate(new Device("mps", 1), DType.FLOAT32, 1));
        assertEquals("the mps backend has no device mps:1; it has 1 mps device(s)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> backend.allocate(Device.CPU, DType.FLOAT32, 1));
        allocator.resetPeakStats();
        assertEquals(allocator.stats().values().get("allocated_bytes.all.current"),
                allocator.stats().values().get("allocated_bytes.all.peak"));
        java.lang.ref.Reference.reachabilityFence(s);
    }

    @Test
    public void kernelsAreNamedByOpAndDtypeAndSplitIntoGraphsAndKernels() {
        Tensor out = Tensor.wrap(Storage.create(Device.CPU, DType.FLOAT32, 6), 2, 3);
        KernelCall call = new KernelCall(KernelOps.LOG_SOFTMAX, new Tensor[] {out}, new Tensor[] {out}, null, null);
        assertEquals(new MetalKernel("log_softmax_f32", KernelOps.LOG_SOFTMAX, KernelPath.GRAPH, 6),
                MpsOps.kernel(KernelOps.LOG_SOFTMAX, call));
        assertEquals(new MetalKernel("relu_f32", KernelOps.RELU, KernelPath.KERNEL, 6),
                MpsOps.kernel(KernelOps.RELU, call));
        Tensor index = Tensor.wrap(Storage.create(Device.CPU, DType.INT64, 2), 2);
        KernelCall argmax = new KernelCall(KernelOps.ARGMAX, new Tensor[] {out}, new Tensor[] {index}, null, null);
        assertEquals("argmax_i64", MpsOps.kernel(KernelOps.ARGMAX, argmax).name());
        assertEquals("index_add", MpsOps.baseName(KernelOps.INDEX_ADD_));
        assertThrows(IllegalArgumentException.class, () -> MpsOps.kernel(KernelOps.COPY_, call));
        assertThrows(IllegalArgumentException.class, () -> MpsOps.kernel("aten::nothing", call));
    }

    @Test
    public void theSourceDeclinesUnlessMpsIsRequested() {
        MpsActivitySource source = new MpsActivitySource(driver);
        assertEquals(Activity.MPS, source.activity());
        assertEquals("mps", source.deviceType());
        assertNull(source.configure(Set.of(Activity.CPU, Activity.NPU), Map.of()));
        assertNotNull(source.configure(Set.of(Activity.MPS), Map.of()));
    }

    @Test
    public void aSessionLinksCommandsToTheirEncodeCallsAndCountsCommandBuffers() {
        MetalDevice device = driver.device(0);
        ActivitySession session = new MpsActivitySource(driver).configure(Set.of(Activity.MPS), Map.of());
        session.start();
        session.pushCorrelation(7);
        int stream = driver.currentStream(0);
        for (int i = 0; i < 3; i++) {
            device.encode(stream, MetalRecords.DISPATCH, EventKind.KERNEL, "k" + i, Map.of(), new Tensor[0],
                    new Tensor[0], () -> { }, SyncType.COMMIT_ADAPTIVE);
        }
        session.popCorrelation();
        assertEquals("two commands were committed adaptively, one is open", 1, driver.openCommands(0, stream));
        session.stop();
        DeviceActivities d = session.collect();
        assertEquals(0, driver.openCommands(0, stream));
        assertEquals("2", d.metadata().get("command_buffers"));
        assertEquals("0", d.metadata().get("command_buffer_errors"));
        assertTrue(Long.parseLong(d.metadata().get("command_buffer_gpu_time_ns")) >= 0);
        assertEquals("0", d.metadata().get("unlinked_records"));
        assertEquals("the stop's commit is inside the window", "0", d.metadata().get("out_of_window_records"));
        assertEquals(0, d.droppedRecords());
        Map<Long, DeviceActivity> launches = new HashMap<>();
        int commits = 0;
        for (DeviceActivity a : d.activities()) {
            if (a.kind() == EventKind.RUNTIME && a.name().equals(MetalRecords.COMMIT)) {
                commits++;
            } else if (a.kind() == EventKind.RUNTIME) {
                assertEquals(7, a.correlationId());
                assertNull(launches.put(a.flowId(), a));
            }
        }
        assertEquals("an adaptive commit and the stop's", 2, commits);
        int kernels = 0;
        for (DeviceActivity a : d.activities()) {
            if (a.kind() == EventKind.KERNEL) {
                kernels++;
                DeviceActivity launch = launches.get(a.flowId());
                assertNotNull(a.name(), launch);
                assertEquals(7, a.correlationId());
                assertEquals(device.stream(stream).id(), a.streamId());
                assertTrue(a.startNanos() >= launch.startNanos());
            }
        }
        assertEquals(3, kernels);
        assertEquals("mps", d.devices().get(0).type());
    }
}
