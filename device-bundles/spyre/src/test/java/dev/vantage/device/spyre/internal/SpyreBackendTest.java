package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Map;
import java.util.TreeSet;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.device.kit.emulation.DeviceBlock;
import dev.vantage.profiler.api.Activity;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backends;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/** The backend is PrivateUse1 renamed spyre, with a kernel for every op, on the driver's devices. */
public class SpyreBackendTest {

    private EmulatedSpyreDriver driver;

    @Rule
    public final TestSupport.Drivers drivers = new TestSupport.Drivers();

    /** Registers the backend's kernels and returns them by op (an unknown op or one registered twice fails). */
    static Map<String, Kernel> kernels(SpyreBackend backend) {
        return Backends.kernels(backend);
    }

    @Test
    public void isPrivateUse1RenamedSpyre() {
        driver = drivers.open(Map.of("capacity.mib", "64", "devices", "2"));
        SpyreBackend backend = new SpyreBackend(driver);
        assertEquals(DispatchKey.PrivateUse1, backend.dispatchKey());
        assertEquals("spyre", backend.dispatchKeyName());
        assertEquals("spyre", backend.deviceType());
        assertEquals(2, backend.deviceCount());
        assertTrue(backend.emulated());
        SpyreActivitySource source = new SpyreActivitySource(driver);
        assertEquals(Activity.SPYRE, source.activity());
        assertEquals("spyre", source.deviceType());
        assertEquals("spyre:0", new SpyreAllocator(driver).device());
    }

    @Test
    public void registersAKernelForEveryOp() {
        driver = drivers.open(Map.of("capacity.mib", "64"));
        assertEquals(new TreeSet<>(KernelOps.ALL), kernels(new SpyreBackend(driver)).keySet());
        assertTrue("registering kernels initialises nothing", !driver.initialized(0));
    }

    @Test
    public void allocatesAlignedBlocksOnItsOwnDevicesOnly() {
        driver = drivers.open(Map.of("capacity.mib", "64"));
        SpyreBackend backend = new SpyreBackend(driver);
        Device spyre0 = new Device("spyre", 0);
        Storage a = backend.allocate(spyre0, DType.INT64, 3);
        Storage b = backend.allocate(spyre0, DType.BOOL, 1);
        assertEquals(spyre0, a.device());
        assertEquals(3, a.size());
        DeviceBlock ba = (DeviceBlock) a.handle();
        DeviceBlock bb = (DeviceBlock) b.handle();
        assertEquals(0, ba.address() % 128);
        assertEquals(0, bb.address() % 128);
        assertEquals(128, ba.bytes());
        assertEquals(24, ba.requested());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.allocate(new Device("spyre", 1), DType.FLOAT32, 4));
        assertTrue(e.getMessage(), e.getMessage().contains("spyre:1") && e.getMessage().contains("1 spyre device"));
        assertThrows(IllegalArgumentException.class, () -> backend.allocate(Device.CPU, DType.FLOAT32, 4));
    }
}
