package dev.vantage.device.kit;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * The part of an accelerator backend that only forwards to its driver: the device type, whether it is emulated,
 * how many devices there are, synchronisation, and a kernel for every op routed to the driver's copy, fill or
 * compute launch. A device bundle's backend component extends it and adds its dispatch key, allocation and those
 * three launches.
 *
 * @param <D> the bundle's driver interface
 */
public abstract class DriverBackend<D extends DeviceDriver> implements Backend {

    /** The driver every call goes to; replaced by {@link #swapDriver} when a driver arrives or leaves. */
    protected volatile D driver;
    private final String type;

    /** Creates a backend on a driver: for tests and for use without a framework. */
    protected DriverBackend(D driver) {
        this.driver = driver;
        this.type = driver.deviceType();
    }

    /**
     * Creates a backend whose driver comes later through {@link #swapDriver}: for a component that binds its
     * driver as a dynamic, greedy reference, so that a vendor's driver takes over without a restart.
     */
    protected DriverBackend(String deviceType) {
        this.type = deviceType;
    }

    /**
     * Sends every launch from now on to another driver of the same device type. The outgoing driver's launched
     * work is waited for first, so work launched on the new driver never overtakes it; tensors allocated before
     * the swap stay in the outgoing driver's memory.
     *
     * @throws IllegalArgumentException if the driver serves another device type
     */
    public void swapDriver(D next) {
        if (!next.deviceType().equals(type)) {
            throw new IllegalArgumentException("the " + type + " backend cannot use a " + next.deviceType()
                    + " driver");
        }
        D previous = driver;
        if (previous == next) {
            return;
        }
        if (previous != null) {
            for (int d = 0; d < previous.deviceCount(); d++) {
                previous.synchronizeDevice(d, DriverSession.STOP_TIMEOUT_NANOS);
            }
        }
        driver = next;
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

    /**
     * Registers a kernel for every op in {@link KernelOps#ALL}: {@code copy_} launches {@link #copy}, {@code zero_}
     * launches {@link #fill}, and every other op launches {@link #compute}, each on the device the call runs on.
     */
    @Override
    public void registerKernels(KernelRegistry registry) {
        for (String op : KernelOps.ALL) {
            if (op.equals(KernelOps.COPY_)) {
                registry.register(op, call -> copy(deviceOf(call), call));
            } else if (op.equals(KernelOps.ZERO_)) {
                registry.register(op, call -> fill(deviceOf(call), call));
            } else {
                registry.register(op, call -> compute(op, deviceOf(call), call));
            }
        }
    }

    /** Launches {@code copy_} on a device: a transfer between host and device memory, or within the device. */
    protected abstract void copy(int device, KernelCall call);

    /** Launches {@code zero_} on a device: a fill of the output's memory. */
    protected abstract void fill(int device, KernelCall call);

    /** Launches any other op on a device as a compute kernel. */
    protected abstract void compute(String op, int device, KernelCall call);
}
