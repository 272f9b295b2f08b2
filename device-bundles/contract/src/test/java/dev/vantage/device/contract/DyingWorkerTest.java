package dev.vantage.device.contract;

import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.function.LongFunction;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

import dev.vantage.device.cpu.internal.CpuBackend;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.Backends;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/**
 * A stream worker of an emulated device that dies (here of an {@link OutOfMemoryError} thrown by the kernel it
 * runs, as a small heap makes it) fails the host thread waiting for its work with that cause, on every emulated
 * device of this repository, instead of leaving it waiting forever; later work on the device fails at once.
 */
@RunWith(Parameterized.class)
public class DyingWorkerTest {

    @Parameters(name = "{0}")
    public static List<Object[]> devices() {
        return List.of(new Object[] {"npu", (LongFunction<DeviceFixture>) Fixtures::npu},
                new Object[] {"spyre", (LongFunction<DeviceFixture>) Fixtures::spyre},
                new Object[] {"mps", (LongFunction<DeviceFixture>) Fixtures::mps});
    }

    private final LongFunction<DeviceFixture> factory;
    private CpuBackend cpu;
    private DeviceFixture fixture;
    private Device device;

    public DyingWorkerTest(String name, LongFunction<DeviceFixture> factory) {
        this.factory = factory;
    }

    @Before
    public void install() {
        Backends.uninstallAll();
        cpu = new CpuBackend();
        Backends.install(new DyingTanh(cpu), "test", "0");
        fixture = factory.apply(64L << 20);
        Backends.install(fixture.backend(), "test", "0");
        device = new Device(fixture.backend().deviceType(), 0);
    }

    @After
    public void uninstall() {
        Backends.uninstallAll();
        fixture.close().run();
        cpu.deactivate();
    }

    @Test(timeout = 30_000)
    public void theWaitingCallerFailsWithWhatKilledTheWorker() {
        Tensor x = Tensor.randn(3, 8, 8).to(device);
        RuntimeException e = assertThrows(RuntimeException.class, () -> x.tanh().toFloatArray());
        assertNotNull("the cause names what killed the worker: " + e, outOfMemory(e));
        // the device's work after that fails at once too, instead of waiting for a worker that is gone
        RuntimeException later = assertThrows(RuntimeException.class, () -> x.relu().add(1).toFloatArray());
        assertTrue(later.toString(), outOfMemory(later) != null || later.getMessage() != null);
    }

    private static OutOfMemoryError outOfMemory(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError oom) {
                return oom;
            }
        }
        return null;
    }

    /** The CPU backend, except that its {@code aten::tanh} kernel throws as a worker out of heap would. */
    private static final class DyingTanh implements Backend {
        private final CpuBackend cpu;

        DyingTanh(CpuBackend cpu) {
            this.cpu = cpu;
        }

        @Override
        public String deviceType() {
            return cpu.deviceType();
        }

        @Override
        public DispatchKey dispatchKey() {
            return cpu.dispatchKey();
        }

        @Override
        public boolean emulated() {
            return cpu.emulated();
        }

        @Override
        public Storage allocate(Device on, DType dtype, int size) {
            return cpu.allocate(on, dtype, size);
        }

        @Override
        public void registerKernels(KernelRegistry registry) {
            cpu.registerKernels(new KernelRegistry() {
                @Override
                public Set<String> ops() {
                    return registry.ops();
                }

                @Override
                public void register(String op, dev.vantage.tensor.spi.Kernel kernel) {
                    registry.register(op, op.equals(KernelOps.TANH)
                            ? call -> {
                                throw new OutOfMemoryError("Java heap space");
                            } : kernel);
                }
            });
        }
    }
}
