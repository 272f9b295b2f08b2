package dev.vantage.tensor.spi;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.internal.Dispatcher;

/**
 * The kernels of the installed host backend, for backends that compute on the host: an emulated device's driver
 * runs them over its device memory (which is host arrays too), so its results are the host's results.
 */
public final class HostKernels {

    private HostKernels() {
    }

    /**
     * Returns the host backend's kernel of an op.
     *
     * @param op a name from {@link KernelOps}
     * @throws IllegalArgumentException if no kernel has that name
     * @throws IllegalStateException if no host backend is installed, or it lacks the kernel
     */
    public static Kernel kernel(String op) {
        int index = KernelOps.ALL.indexOf(op);
        if (index < 0) {
            throw new IllegalArgumentException("no kernel named '" + op + "'");
        }
        Kernel k = Dispatcher.kernel(index, Device.CPU);
        if (k == null) {
            throw new IllegalStateException("no host kernel for " + op + "; installed device backends: "
                    + Dispatcher.installedDeviceTypes());
        }
        return k;
    }
}
