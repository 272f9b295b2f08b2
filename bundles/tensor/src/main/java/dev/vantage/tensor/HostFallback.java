package dev.vantage.tensor;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;

/**
 * Runs a kernel the device's backend lacks on the CPU: its inputs are copied to the host ({@code aten::to} →
 * {@code aten::_to_copy} → {@code aten::copy_}) and its outputs copied back ({@code aten::copy_}), all of them ops
 * a profile shows. The log warns once per kernel and device type. The copies are the op's temporaries, counted as
 * such and freed when it ends.
 */
final class HostFallback {

    private static final System.Logger LOG = System.getLogger("dev.vantage.tensor");
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private HostFallback() {
    }

    /**
     * Runs {@code op}'s kernel on the host for a device that has none.
     *
     * @throws IllegalStateException if the device is the host, or the host has no such kernel either
     */
    static void run(Op op, Device device, Tensor[] in, Tensor[] out, double[] scalars, long[][] ints) {
        String name = op.kernelName;
        if (device.equals(Device.CPU)) {
            throw new IllegalStateException(name + " has no kernel on " + device + "; installed device backends: "
                    + Dispatcher.installedDeviceTypes());
        }
        Kernel host = Dispatcher.kernel(op.kernel, Device.CPU);
        if (host == null) {
            throw new IllegalStateException(name + " has no kernel on " + device + " and no CPU fallback;"
                    + " installed device backends: " + Dispatcher.installedDeviceTypes());
        }
        if (WARNED.add(name + "@" + device.type())) {
            LOG.log(Level.WARNING, name + " has no " + device.type() + " kernel; it runs on the CPU, with its"
                    + " inputs and outputs copied");
        }
        Tensor[] hostIn = new Tensor[in.length];
        Tensor[] hostOut = new Tensor[out.length];
        try (MemoryScope temporary = MemoryScope.enter(MemoryCategory.TEMPORARY)) {
            for (int i = 0; i < in.length; i++) {
                hostIn[i] = in[i] == null ? null : in[i].to(Device.CPU);
            }
            for (int i = 0; i < out.length; i++) {
                if (out[i] == null) {
                    continue;
                }
                for (int j = 0; j < in.length && hostOut[i] == null; j++) {
                    if (out[i] == in[j]) {
                        hostOut[i] = hostIn[j];   // in place: compute on the host copy, then copy it back
                    }
                }
                if (hostOut[i] == null) {
                    hostOut[i] = Op.empty(Device.CPU, out[i].dtype(), out[i].sizes);
                }
            }
            host.run(new KernelCall(name, hostIn, hostOut, scalars, ints));
            for (int i = 0; i < out.length; i++) {
                if (out[i] != null) {
                    Views.copyInto(out[i], hostOut[i]);
                }
            }
        } finally {
            for (int i = 0; i < in.length; i++) {
                Op.closeTemporary(hostIn[i], in);
            }
            for (int i = 0; i < out.length; i++) {
                Op.closeTemporary(hostOut[i], in);
            }
        }
    }
}
