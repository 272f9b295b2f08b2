package dev.vantage.tensor.spi;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.internal.Dispatcher;

/**
 * The host backend's kernels, as a service the host device bundle (device-cpu) registers. A backend that computes
 * on the host (an emulated device's driver runs these kernels over its device memory, which is host arrays too)
 * references this service, so that its components stay unsatisfied, and say why, where no host backend is
 * installed, and so that a resolver assembling a distribution brings the host bundle in.
 */
@ProviderType
public interface HostKernels {

    /**
     * Returns the host kernel of an op.
     *
     * @param op a name from {@link KernelOps}
     * @throws IllegalArgumentException if no kernel has that name
     * @throws IllegalStateException if the host backend lacks the kernel
     */
    Kernel kernel(String op);

    /**
     * Returns the host kernels of whichever host backend is installed in the runtime when a kernel is asked for:
     * for tests and for use without a framework, where no service registry wires the host in.
     */
    static HostKernels installed() {
        return op -> {
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
        };
    }
}
