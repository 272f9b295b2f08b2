package dev.vantage.device.kit.emulation;

import java.util.function.BiConsumer;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Registers an emulated device's kernels: one per op of {@link KernelOps}, each handing the call to the device
 * bundle's launcher, which queues {@link #compute} on a stream.
 */
public final class EmulatedKernels {

    private EmulatedKernels() {
    }

    /** Registers a kernel for every op; the launcher receives the op name and the call. */
    public static void registerAll(KernelRegistry registry, BiConsumer<String, KernelCall> launcher) {
        for (String op : KernelOps.ALL) {
            registry.register(op, call -> launcher.accept(op, call));
        }
    }

    /**
     * Returns the work that computes an op's results over device memory: the host's kernel, looked up now so that
     * a missing kernel fails the launch on the caller's thread.
     *
     * @throws IllegalStateException if the host has no such kernel
     */
    public static Runnable compute(HostKernels host, String op, KernelCall call) {
        Kernel kernel = host.kernel(op);
        return () -> kernel.run(call);
    }

    /** Returns the call's inputs, which the work reads. */
    public static Tensor[] reads(KernelCall call) {
        Tensor[] t = new Tensor[call.inputCount()];
        for (int i = 0; i < t.length; i++) {
            t[i] = call.input(i);
        }
        return t;
    }

    /** Returns the call's outputs, which the work writes. */
    public static Tensor[] writes(KernelCall call) {
        Tensor[] t = new Tensor[call.outputCount()];
        for (int i = 0; i < t.length; i++) {
            t[i] = call.output(i);
        }
        return t;
    }
}
