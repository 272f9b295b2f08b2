package dev.vantage.device.npu.driver;

import java.util.Objects;

/**
 * One kernel launch's description.
 *
 * @param opType the NPU operator type, such as {@code MatMulV2}: the kernel's name in traces
 * @param op the runtime op it computes, a name from {@link dev.vantage.tensor.spi.KernelOps}
 * @param type the compute unit it runs on
 * @param blockDim how many cores it is split over, 1 or more
 */
public record NpuKernel(String opType, String op, KernelType type, int blockDim) {

    /** Checks the fields. */
    public NpuKernel {
        Objects.requireNonNull(opType, "opType");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(type, "type");
        if (blockDim < 1) {
            throw new IllegalArgumentException("block dim must be 1 or more, not " + blockDim);
        }
    }
}
