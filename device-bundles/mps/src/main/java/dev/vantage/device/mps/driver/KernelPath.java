package dev.vantage.device.mps.driver;

/** How a kernel is encoded, as the MPS profiler tells its operations apart. */
public enum KernelPath {
    /** An {@code MPSGraph} executable encoded into the command buffer: matrix products, convolutions, reductions. */
    GRAPH,
    /** A Metal compute pipeline dispatched by a compute command encoder: elementwise ops, gathers, fills. */
    KERNEL
}
