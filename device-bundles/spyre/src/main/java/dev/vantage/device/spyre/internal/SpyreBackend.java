package dev.vantage.device.spyre.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverBackend;
import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * The Spyre backend, on the out-of-tree dispatch key {@link DispatchKey#PrivateUse1} renamed {@code spyre}: every
 * runtime op is a launch on the calling thread's current stream of its device through the {@link SpyreDriver}
 * service (the bundle's emulated driver unless a vendor driver with a higher ranking is installed). Each op runs
 * as a compiled kernel named by {@link SpyreKernels}; {@code copy_} is a DMA transfer and {@code zero_} a memset.
 * Launches return at once; reading a result on the host waits for it.
 */
@Component(service = Backend.class)
public class SpyreBackend extends DriverBackend<SpyreDriver> {

    /** Creates the component on a driver; DS passes the highest-ranked {@link SpyreDriver} service. */
    @Activate
    public SpyreBackend(@Reference SpyreDriver driver) {
        super(driver);
    }

    @Override
    public DispatchKey dispatchKey() {
        return DispatchKey.PrivateUse1;
    }

    @Override
    public String dispatchKeyName() {
        return EmulatedSpyreDriver.TYPE;
    }

    @Override
    public Storage allocate(Device device, DType dtype, int size) {
        return driver.malloc(index(device), dtype, size);
    }

    @Override
    protected void copy(int device, KernelCall call) {
        driver.memcpyAsync(device, driver.currentStream(device), call);
    }

    @Override
    protected void fill(int device, KernelCall call) {
        driver.memsetAsync(device, driver.currentStream(device), call);
    }

    @Override
    protected void compute(String op, int device, KernelCall call) {
        driver.launchCompute(device, driver.currentStream(device), SpyreKernels.kernel(op, call), call);
    }
}
