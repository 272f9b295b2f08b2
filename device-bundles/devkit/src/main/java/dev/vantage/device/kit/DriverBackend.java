package dev.vantage.device.kit;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;

/**
 * The part of an accelerator backend that only forwards to its driver: the device type, whether it is emulated,
 * how many devices there are, and synchronisation. A device bundle's backend component extends it and adds its
 * dispatch key, allocation and kernels.
 *
 * @param <D> the bundle's driver interface
 */
public abstract class DriverBackend<D extends DeviceDriver> implements Backend {

    /** The driver every call goes to. */
    protected final D driver;
    private final String type;

    /** Creates a backend on a driver. */
    protected DriverBackend(D driver) {
        this.driver = driver;
        this.type = driver.deviceType();
    }

    @Override
    public String deviceType() {
        return type;
    }

    @Override
    public boolean emulated() {
        return driver.emulated();
    }

    @Override
    public int deviceCount() {
        return driver.deviceCount();
    }

    /** Waits without a time limit for the work launched on the device. */
    @Override
    public void synchronize(Device device) {
        driver.synchronizeDevice(index(device), Long.MAX_VALUE);
    }

    /**
     * Returns a device's index after checking it is one of this backend's; see {@link BackendSupport#index}.
     */
    protected final int index(Device device) {
        return BackendSupport.index(device, type, driver.deviceCount());
    }

    /** Returns the index of the device a call runs on; see {@link BackendSupport#deviceOf}. */
    protected final int deviceOf(KernelCall call) {
        return BackendSupport.deviceOf(call, type);
    }
}
