package dev.vantage.tensor;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.internal.MemoryTags;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;

/**
 * Runs kernels: allocates outputs on the right device, checks what every op checks, and falls back to the CPU
 * for an op a device's backend lacks, with the copies visible in profiles as {@code aten::to} and
 * {@code aten::copy_}.
 */
final class Exec {

    private static final System.Logger LOG = System.getLogger("dev.vantage.tensor");
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private Exec() {
    }

    /** A new contiguous tensor, allocated by the device's backend; a memory profile learns what it holds. */
    static Tensor empty(Device device, DType dtype, int[] sizes) {
        return new Tensor(MemoryTags.allocate(device, dtype, Shapes.numel(sizes)), sizes,
                Shapes.contiguousStrides(sizes), 0);
    }

    /** The device all non-null tensors share, or an exception naming the op, the shapes and the devices. */
    static Device device(String op, Tensor... tensors) {
        Device device = null;
        for (Tensor t : tensors) {
            if (t == null) {
                continue;
            }
            t.requireOpen(op);
            if (device == null) {
                device = t.device();
            } else if (!device.equals(t.device())) {
                throw new IllegalArgumentException(op + ": expected all tensors on one device, got " + describe(
                        tensors));
            }
        }
        return device;
    }

    /** Checks that a tensor holds floats, naming the op otherwise. */
    static void requireFloat(String op, Tensor t) {
        if (t != null && t.dtype() != DType.FLOAT32) {
            throw new IllegalArgumentException(op + ": expected a float tensor, got " + describe(t));
        }
    }

    /**
     * Refuses to write in place into a tensor where several elements share one memory location (an expanded
     * view), where the result would depend on the order of writes, as torch does.
     */
    static void requireWritable(String op, Tensor t) {
        for (int d = 0; d < t.dim(); d++) {
            if (t.strides[d] == 0 && t.sizes[d] > 1) {
                throw new IllegalArgumentException(op + ": more than one element of the written-to tensor "
                        + describe(t) + " refers to a single memory location (an expanded view); clone it first");
            }
        }
    }

    /** Checks a tensor's rank, naming the op otherwise. */
    static void requireRank(String op, Tensor t, int rank, String what) {
        if (t.dim() != rank) {
            throw new IllegalArgumentException(op + ": expected " + what + " of " + rank + " dimensions, got "
                    + describe(t));
        }
    }

    /** Describes tensors as messages show them: {@code [2, 3] float on cpu:0}. */
    static String describe(Tensor... tensors) {
        StringBuilder s = new StringBuilder();
        for (Tensor t : tensors) {
            if (t == null) {
                continue;
            }
            s.append(s.length() == 0 ? "" : " and ").append(Arrays.toString(t.sizes)).append(' ')
                    .append(t.dtype().profileName()).append(" on ").append(t.device());
        }
        return s.toString();
    }

    /**
     * Runs a gradient kernel with one float output of {@code shape}, in its own frame, on the device of
     * {@code in[0]}. The frame shows the first {@code shown} inputs, then the scalars and the int lists.
     */
    static Tensor gradient(OpDef op, int[] shape, int shown, Tensor[] in, double[] scalars, long[][] ints) {
        CallFrame f = CallFrame.begin(op, -1, shown, in[0], shown > 1 ? in[1] : null, shown > 2 ? in[2] : null,
                scalars == null ? 0 : scalars.length, ints == null ? 0 : ints.length);
        try {
            Device device = in[0].device();
            Tensor out = empty(device, DType.FLOAT32, shape);
            run(op, device, in, new Tensor[] {out}, scalars, ints);
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    /** Runs an op's kernel on a device, falling back to the CPU when the device's backend lacks it. */
    static void run(OpDef op, Device device, Tensor[] in, Tensor[] out, double[] scalars, long[][] ints) {
        Kernel kernel = Dispatcher.kernel(op, device);
        String name = dev.vantage.tensor.spi.KernelOps.ALL.get(op.kernel());
        if (kernel != null) {
            kernel.run(new KernelCall(name, in, out, scalars, ints));
            return;
        }
        if (device.equals(Device.CPU)) {
            throw new IllegalStateException(name + " has no kernel on " + device + "; installed device backends: "
                    + Dispatcher.installedDeviceTypes());
        }
        Kernel host = Dispatcher.kernel(op, Device.CPU);
        if (host == null) {
            throw new IllegalStateException(name + " has no kernel on " + device + " and no CPU fallback;"
                    + " installed device backends: " + Dispatcher.installedDeviceTypes());
        }
        if (WARNED.add(name + "@" + device.type())) {
            LOG.log(Level.WARNING, name + " has no " + device.type() + " kernel; it runs on the CPU, with its"
                    + " inputs and outputs copied");
        }
        // the copies are the op's temporaries: counted as such, and freed when the op ends
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
                    hostOut[i] = empty(Device.CPU, out[i].dtype(), out[i].sizes);
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
                closeTemporary(hostIn[i], in);
            }
            for (int i = 0; i < out.length; i++) {
                closeTemporary(hostOut[i], in);
            }
        }
    }

    /**
     * Closes a tensor an op made for itself, unless it is null or one of {@code keep} (an op's input or result it
     * merely passed through, such as {@code to()} of a tensor already on the host).
     */
    static void closeTemporary(Tensor t, Tensor... keep) {
        if (t == null) {
            return;
        }
        for (Tensor k : keep) {
            if (k == t) {
                return;
            }
        }
        t.close();
    }
}
