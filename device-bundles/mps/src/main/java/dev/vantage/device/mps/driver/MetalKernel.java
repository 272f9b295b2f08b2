package dev.vantage.device.mps.driver;

import java.util.Objects;

/**
 * One kernel to encode.
 *
 * @param name the Metal function or graph name, such as {@code addmm_f32}: the kernel's name in traces
 * @param op the runtime op it computes, a name from {@link dev.vantage.tensor.spi.KernelOps}
 * @param path whether it is an MPSGraph or a Metal compute pipeline
 * @param threads the grid size it is dispatched over, 1 or more
 */
public record MetalKernel(String name, String op, KernelPath path, long threads) {

    /** Checks the fields. */
    public MetalKernel {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(path, "path");
        if (threads < 1) {
            throw new IllegalArgumentException("a kernel needs a grid of 1 thread or more, not " + threads);
        }
    }
}
