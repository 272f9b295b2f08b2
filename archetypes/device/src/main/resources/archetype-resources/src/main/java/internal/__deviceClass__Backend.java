package ${package}.internal;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.device.kit.DriverBackend;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;
import ${package}.driver.${deviceClass}Driver;

/**
 * The ${deviceType} backend: every runtime op is a launch on the device's default stream through the
 * highest-ranked {@link ${deviceClass}Driver} service; {@code copy_} is a memcpy and {@code zero_} a memset. It
 * takes the out-of-tree dispatch slot {@code ${dispatchKey}} and shows itself as {@code ${deviceType}}.
 */
@Component(service = Backend.class)
public class ${deviceClass}Backend extends DriverBackend<${deviceClass}Driver> {

    /** The device type tensors name this device by, as in {@code new Device("${deviceType}", 0)}. */
    public static final String TYPE = "${deviceType}";

    private static final int STREAM = 0;

    /** Creates the component; DS binds the driver before activating it. */
    public ${deviceClass}Backend() {
        super(TYPE);
    }

    /** Creates a backend on a driver, for tests and for use without a framework. */
    public ${deviceClass}Backend(${deviceClass}Driver driver) {
        super(driver);
    }

    /** Takes the highest-ranked driver, and the next one whenever a driver arrives or leaves, without a restart. */
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindDriver(${deviceClass}Driver driver) {
        swapDriver(driver);
    }

    /** Nothing to do: DS binds the replacement first, or deactivates this component when none is left. */
    void unbindDriver(${deviceClass}Driver driver) {
    }

    @Override
    public DispatchKey dispatchKey() {
        return DispatchKey.${dispatchKey};
    }

    @Override
    public String dispatchKeyName() {
        return TYPE;
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
        driver.launchKernel(device, STREAM, op, call);
    }
}
