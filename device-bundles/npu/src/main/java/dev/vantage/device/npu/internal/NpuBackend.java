package dev.vantage.device.npu.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.device.kit.DriverBackend;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * The NPU backend: every runtime op is a launch on the current device's default stream through the
 * {@link NpuDriver} service (the bundle's emulated driver unless a vendor driver with a higher ranking is
 * installed). Kernels are typed and split into blocks by {@link NpuOps}; {@code copy_} is a memcpy and
 * {@code zero_} a memset. Launches return at once; reading a result on the host waits for it.
 */
@Component(service = Backend.class)
public class NpuBackend extends DriverBackend<NpuDriver> {

    static final String TYPE = "npu";
    private static final int STREAM = 0;

    /** Creates the component; DS binds the driver before activating it. */
    public NpuBackend() {
        super(TYPE);
    }

    /** Creates a backend on a driver, for use without a framework. */
    public NpuBackend(NpuDriver driver) {
        super(driver);
    }

    /**
     * Takes the highest-ranked {@link NpuDriver} service, and the next one whenever a higher-ranked driver
     * arrives or the current one leaves, without a restart: launches go to the new driver from then on.
     */
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(NpuDriver driver) {
        swapDriver(driver);
    }

    /** Nothing to do: DS binds the replacement first, or deactivates this component when none is left. */
    void unbindDriver(NpuDriver driver) {
    }

    @Override
    public DispatchKey dispatchKey() {
        return DispatchKey.NPU;
    }

    @Override
    public Storage allocate(Device device, DType dtype, int size) {
        return driver.malloc(index(device), dtype, size);
    }

    @Override
    protected void copy(int device, KernelCall call) {
        driver.memcpyAsync(device, STREAM, call);
    }

    @Override
    protected void fill(int device, KernelCall call) {
        driver.memsetAsync(device, STREAM, call);
    }

    @Override
    protected void compute(String op, int device, KernelCall call) {
        driver.launchKernel(device, STREAM, NpuOps.kernel(op, call), call);
    }
}
