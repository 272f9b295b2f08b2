package dev.vantage.device.contract;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.device.cpu.host.CpuHost;
import dev.vantage.device.kit.ClockCalibration;
import dev.vantage.device.kit.DriverSession;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Devices;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Conv2d;
import dev.vantage.tensor.nn.Embedding;
import dev.vantage.tensor.nn.LayerNorm;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.optim.Adam;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Backends;
import dev.vantage.tensor.spi.Storage;

/**
 * What every device bundle must do, run over one bundle by a subclass that builds its {@link DeviceFixture}. The
 * host backend is installed too, from {@link #host()}, since an accelerator's tensors come from and go back to the
 * host (and an emulated device computes with the host's kernels).
 *
 * <p>The contract: kernels for every op (or an explicit CPU fallback) that give the host's results, training
 * included; copies that round-trip every dtype and strided views; memory counted by the allocator; an
 * out-of-memory error naming the device, the request and the free bytes; and, for a device with activity, a
 * session on Kineto's terms: it declines when its activity is not requested, links every kernel to the host op
 * that launched it, never shows a kernel starting before its launch, keeps the calibration error under its bound,
 * and counts what its full buffer dropped.
 */
public abstract class DeviceContract {

    /** The largest calibration error a device may claim, in nanoseconds. */
    public static final long MAX_CLOCK_ERROR_NANOS = 5_000;

    private DeviceFixture host;
    private DeviceFixture fixture;
    private Device device;

    /**
     * Builds the host backend's fixture: by default the CPU bundle's backend and allocator, as the platform wires
     * them ({@link CpuHost}). Override only to test against another host backend.
     */
    protected DeviceFixture host() {
        CpuHost cpu = CpuHost.open();
        return new DeviceFixture(cpu.backend(), null, null, null, cpu.allocator(), -1, cpu::close);
    }

    /**
     * Builds the fixture of the bundle under test; called before every test, after {@link #host()}. The host
     * bundle's own suite returns {@link #hostFixture()}.
     *
     * @param capacityBytes the device memory to configure, where the device has a capacity of its own
     */
    protected abstract DeviceFixture create(long capacityBytes);

    /** The device memory fixtures are built with: small, so the out-of-memory test is cheap. */
    protected static final long CAPACITY = 64L << 20;

    @Before
    public void install() {
        Backends.uninstallAll();
        host = host();
        Backends.install(host.backend(), "contract", "0");
        fixture = create(CAPACITY);
        if (fixture.backend() != host.backend()) {
            Backends.install(fixture.backend(), "contract", "0");
        }
        device = new Device(fixture.backend().deviceType(), 0);
    }

    @After
    public void uninstall() {
        Backends.uninstallAll();
        if (fixture != null && fixture.backend() != host.backend()) {
            fixture.close().run();
        }
        if (host != null) {
            host.close().run();
        }
    }

    /** Returns true when the bundle under test is the host itself. */
    private boolean isHost() {
        return device.equals(Device.CPU);
    }

    @Test
    public void registersAKernelForEveryOpAndCopy() {
        Set<String> registered = Backends.kernelsOf(fixture.backend());
        assertTrue("a device must register aten::copy_: it is how tensors move", registered.contains(KernelOps.COPY_));
        Set<String> missing = new TreeSet<>(KernelOps.ALL);
        missing.removeAll(registered);
        assertEquals("ops without a kernel run on the CPU fallback; this bundle declares all", Set.of(), missing);
    }

    @Test
    public void copiesRoundTripEveryDtypeAndStridedViews() {
        Tensor f = Tensor.randn(7, 3, 5);
        assertArrayEquals(f.toFloatArray(), f.to(device).toFloatArray(), 0f);
        Tensor l = Tensor.ofLongs(new long[] {1, -2, 3, Long.MAX_VALUE}, 2, 2);
        assertArrayEquals(l.toLongArray(), l.to(device).toLongArray());
        Tensor b = Tensor.ofBools(new boolean[] {true, false, true}, 3);
        assertArrayEquals(b.toBoolArray(), b.to(device).toBoolArray());
        Tensor onDevice = f.to(device);
        assertEquals(device, onDevice.device());
        Tensor view = onDevice.transpose(0, 1).slice(0, 1, 4);
        assertArrayEquals(f.transpose(0, 1).slice(0, 1, 4).toFloatArray(), view.toFloatArray(), 0f);
        assertArrayEquals(f.transpose(0, 1).contiguous().toFloatArray(),
                onDevice.transpose(0, 1).contiguous().toFloatArray(), 0f);
    }

    @Test
    public void opsGiveTheHostResults() {
        Tensor a = Tensor.randn(1, 4, 6);
        Tensor b = Tensor.randn(2, 6, 3);
        Tensor da = a.to(device);
        Tensor db = b.to(device);
        assertSame(a.mm(b), da.mm(db));
        assertSame(a.relu().add(a.exp()).mul(a.tanh()), da.relu().add(da.exp()).mul(da.tanh()));
        assertSame(a.softmax(1), da.softmax(1));
        assertSame(a.logSoftmax(1).sum(), da.logSoftmax(1).sum());
        assertSame(a.mean(new int[] {1}, false), da.mean(new int[] {1}, false));
        assertArrayEquals(a.argmax(1, false).toLongArray(), da.argmax(1, false).toLongArray());
        assertSame(Tensor.cat(0, a, a.neg()), Tensor.cat(0, da, da.neg()));
        assertSame(a.mul(a).add(1).sqrt().log().pow(2).div(a.sigmoid()), da.mul(da).add(1).sqrt().log().pow(2).div(da.sigmoid()));
        Tensor zeros = Tensor.randn(3, 4, 4).to(device);
        zeros.zero_();
        assertArrayEquals(new float[16], zeros.toFloatArray(), 0f);
    }

    @Test
    public void trainingStepsGiveTheHostLossesAndWeights() {
        float[] hostLosses = train(Device.CPU);
        float[] deviceLosses = train(device);
        assertArrayEquals(hostLosses, deviceLosses, 0f);
        assertTrue("the loss falls: " + hostLosses[0] + " -> " + hostLosses[hostLosses.length - 1],
                hostLosses[hostLosses.length - 1] < hostLosses[0]);
    }

    /** Three Adam steps of a model touching every family of kernels; returns the losses, read on the host. */
    private static float[] train(Device on) {
        Module conv = new Sequential(new Conv2d(1, 2, 3, 1, 1, 11), Layers.relu(), Layers.maxPool2d(2),
                Layers.flatten(), new Linear(2 * 3 * 3, 8, true, 12), Layers.gelu(), new LayerNorm(8),
                Layers.dropout(0.25, 13), new Linear(8, 4, true, 14)).to(on);
        Embedding embedding = new Embedding(5, 4, 15);
        embedding.to(on);
        List<Tensor> params = new ArrayList<>(conv.parameters());
        params.addAll(embedding.parameters());
        Adam adam = new Adam(params, 0.05);
        Tensor x = Tensor.randn(16, 3, 1, 6, 6).to(on);
        Tensor tokens = Tensor.ofLongs(new long[] {0, 3, 4}, 3).to(on);
        Tensor target = Tensor.ofLongs(new long[] {1, 0, 3}, 3).to(on);
        float[] losses = new float[3];
        for (int step = 0; step < losses.length; step++) {
            adam.zeroGrad();
            Tensor logits = conv.forward(x).add(embedding.forward(tokens));
            Tensor loss = dev.vantage.tensor.Functional.crossEntropy(logits, target);
            loss.backward();
            adam.step();
            losses[step] = loss.item();
        }
        return losses;
    }

    private static void assertSame(Tensor expected, Tensor actual) {
        assertArrayEquals(expected.shape(), actual.shape());
        assertArrayEquals(expected.toFloatArray(), actual.toFloatArray(), 0f);
    }

    @Test
    public void allocationsAreCountedByTheAllocator() {
        String key = "allocated_bytes.all.current";
        long before = fixture.allocator().stats().values().get(key);
        Storage s = fixture.backend().allocate(device, DType.FLOAT32, 1 << 16);
        long after = fixture.allocator().stats().values().get(key);
        assertTrue("allocating 256 KiB raised " + key + " by " + (after - before), after - before >= 4 << 16);
        assertEquals(1 << 16, s.size());
        assertEquals(device, s.device());
    }

    @Test
    public void outOfMemoryNamesTheDeviceTheRequestAndTheFreeBytes() {
        assumeTrue("the host has no capacity of its own", fixture.capacityBytes() > 0);
        int elements = (int) (fixture.capacityBytes() / 4 + 1024);
        OutOfMemoryError e = assertThrows(OutOfMemoryError.class,
                () -> fixture.backend().allocate(device, DType.FLOAT32, elements));
        String message = e.getMessage();
        assertTrue(message, message.contains(device.toString()));
        assertTrue(message, message.contains(Long.toString(elements * 4L)));
        assertTrue(message, message.contains("free"));
        assertTrue(fixture.allocator().stats().values().get("num_ooms") >= 1);
    }

    @Test
    public void synchronizeReturnsWhenLaunchedWorkIsDone() {
        Tensor big = Tensor.randn(5, 128, 128).to(device);
        Tensor product = big.mm(big);
        Devices.synchronize(device);
        assertSame(Tensor.randn(5, 128, 128).mm(Tensor.randn(5, 128, 128)), product);
    }

    @Test
    public void declinesASessionWhenItsActivityIsNotRequested() {
        assumeTrue("no device activity", fixture.source() != null);
        assertNull(fixture.source().configure(Set.of(Activity.CPU), Map.of()));
        assertEquals(fixture.activity(), fixture.source().activity());
        assertEquals(fixture.backend().deviceType(), fixture.source().deviceType());
    }

    @Test
    public void linksEveryKernelToTheOpThatLaunchedItAndNeverBeforeIt() {
        assumeTrue("no device activity", fixture.source() != null);
        Tensor a = Tensor.randn(3, 32, 32).to(device);
        ActivitySession session = fixture.source().configure(Set.of(Activity.CPU, fixture.activity()),
                Map.of());
        assertNotNull(session);
        session.start();
        Tensor r;
        try (GradMode.Scope off = GradMode.disabled()) {
            session.pushCorrelation(41);
            Tensor p = a.mm(a);
            session.popCorrelation();
            session.pushCorrelation(42);
            r = p.relu();
            session.popCorrelation();
        }
        float[] values = r.toFloatArray();
        session.stop();
        DeviceActivities d = session.collect();
        assertEquals(32 * 32, values.length);
        Map<Long, DeviceActivity> launches = new HashMap<>();
        for (DeviceActivity x : d.activities()) {
            if (x.kind() == EventKind.RUNTIME) {
                assertNull("one launch per correlation", launches.put(x.flowId(), x));
                assertEquals(Thread.currentThread().getId(), x.launchThreadId());
            }
        }
        Set<Long> ops = new TreeSet<>();
        int kernels = 0;
        for (DeviceActivity x : d.activities()) {
            if (!x.kind().isDeviceWork()) {
                continue;
            }
            DeviceActivity launch = launches.get(x.flowId());
            assertNotNull("device work " + x.name() + " has no launch", launch);
            assertEquals(launch.correlationId(), x.correlationId());
            assertTrue(x.name() + " starts " + (launch.startNanos() - x.startNanos()) + " ns before its launch",
                    x.startNanos() >= launch.startNanos());
            assertEquals(0, x.deviceIndex());
            ops.add(x.correlationId());
            kernels += x.kind() == EventKind.KERNEL ? 1 : 0;
        }
        // every flow has both ends: a launch whose flow id no device work shares would start an arrow to nowhere
        Set<Long> workFlows = new HashSet<>();
        for (DeviceActivity x : d.activities()) {
            if (x.kind().isDeviceWork()) {
                workFlows.add(x.flowId());
            }
        }
        for (DeviceActivity x : d.activities()) {
            if (x.kind() == EventKind.RUNTIME && x.flowId() >= 0) {
                assertTrue("runtime call " + x.name() + " starts flow " + x.flowId() + " but no device work ends it",
                        workFlows.contains(x.flowId()));
            }
        }
        assertTrue("kernels of both ops: " + ops, ops.containsAll(Set.of(41L, 42L)));
        assertTrue(kernels >= 2);
        assertEquals(0, d.droppedRecords());
        TraceDevice traceDevice = d.devices().get(0);
        assertEquals(fixture.backend().deviceType(), traceDevice.type());
        assertEquals(fixture.backend().emulated(), traceDevice.emulated());
        assertEquals(Boolean.toString(fixture.backend().emulated()), d.metadata().get("emulated"));
    }

    @Test
    public void calibratedDeviceTimeStaysWithinItsBound() {
        assumeTrue("no device activity", fixture.source() != null);
        DriverSession session = new DriverSession(fixture.driver(), Map.of());
        session.start();
        Tensor a = Tensor.randn(4, 64, 64).to(device);
        a.mm(a).toFloatArray();
        List<long[]> probes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long before = System.nanoTime();
            long ticks = fixture.driver().deviceTimestamp(0);
            long after = System.nanoTime();
            probes.add(new long[] {before, ticks, after});
            a.mm(a).toFloatArray();
        }
        session.stop();
        ClockCalibration c = session.calibration(0);
        long bound = c.errorBoundNanos();
        assertTrue("bound " + bound + " ns", bound <= MAX_CLOCK_ERROR_NANOS);
        for (long[] p : probes) {
            long host = c.toHostNanos(p[1]);
            assertTrue("calibrated " + host + " before " + p[0] + " - " + bound, host >= p[0] - bound);
            assertTrue("calibrated " + host + " after " + p[2] + " + " + bound, host <= p[2] + bound);
        }
    }

    @Test
    public void countsTheRecordsAFullBufferDrops() {
        assumeTrue("no device activity", fixture.source() != null);
        ActivitySession session = fixture.source().configure(Set.of(fixture.activity()),
                Map.of(DriverSession.MAX_RECORDS, "4"));
        session.start();
        Tensor a = Tensor.randn(6, 8, 8).to(device);
        Tensor r = a;
        for (int i = 0; i < 10; i++) {
            r = r.add(a);
        }
        r.toFloatArray();
        session.stop();
        DeviceActivities d = session.collect();
        long recorded = Long.parseLong(d.metadata().get("records"));
        long dropped = Long.parseLong(d.metadata().get("buffer_dropped_records"));
        assertEquals(4, recorded);
        assertTrue("10 adds and a copy leave more than 4 records; dropped " + dropped, dropped >= 18);
        assertTrue(d.droppedRecords() >= dropped);
        assertFalse(d.errors().isEmpty());
        assertTrue(d.errors().get(0), d.errors().get(0).contains("dropped"));
    }

    /** Returns the host fixture built for the current test. */
    protected final DeviceFixture hostFixture() {
        return host;
    }

    /** Returns the device under test; for subclasses' own tests. */
    protected final Device device() {
        return device;
    }

    /** Returns the fixture under test; for subclasses' own tests. */
    protected final DeviceFixture fixture() {
        return fixture;
    }

    /** Returns the backend under test. */
    protected final Backend backend() {
        return fixture.backend();
    }
}
