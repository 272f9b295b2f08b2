package dev.vantage.device.mps.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DriverBackend;
import dev.vantage.device.mps.driver.MetalDriver;
import dev.vantage.device.mps.driver.SyncType;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * The MPS backend: every runtime op is encoded into the calling thread's stream, from the {@link MetalDriver}
 * service's pool (the bundle's emulated driver unless a native driver with a higher ranking is installed), so
 * threads running inference at once work on separate streams. Kernels are named and split into MPSGraph and Metal
 * kernels by {@link MpsOps}; {@code copy_} is a blit copy and {@code zero_} a blit fill. Command buffers commit
 * adaptively; reading a result on the host commits and waits for it.
 */
@Component(service = Backend.class)
public class MpsBackend extends DriverBackend<MetalDriver> {

    static final String TYPE = "mps";

    /** Creates the component on a driver; DS passes the highest-ranked {@link MetalDriver} service. */
    @Activate
    public MpsBackend(@Reference MetalDriver driver) {
        super(driver);
    }

    @Override
    public DispatchKey dispatchKey() {
        return DispatchKey.MPS;
    }

    @Override
    public Storage allocate(Device device, DType dtype, int size) {
        return driver.newBuffer(index(device), dtype, size);
    }

    @Override
    protected void copy(int device, KernelCall call) {
        driver.encodeCopy(device, driver.currentStream(device), call, SyncType.COMMIT_ADAPTIVE);
    }

    @Override
    protected void fill(int device, KernelCall call) {
        driver.encodeFill(device, driver.currentStream(device), call, SyncType.COMMIT_ADAPTIVE);
    }

    @Override
    protected void compute(String op, int device, KernelCall call) {
        driver.encodeKernel(device, driver.currentStream(device), MpsOps.kernel(op, call), call,
                SyncType.COMMIT_ADAPTIVE);
    }
}
