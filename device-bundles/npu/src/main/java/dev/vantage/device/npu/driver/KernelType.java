package dev.vantage.device.npu.driver;

/** The compute unit an NPU kernel runs on, as torch_npu's {@code Accelerator Core} column names it. */
public enum KernelType {
    /** The cube units: matrix products and convolutions. */
    AI_CORE,
    /** The vector units: elementwise ops, reductions, normalisations. */
    AI_VECTOR_CORE,
    /** The device's general-purpose cores: ops with no AI Core kernel (indexing, sampling, losses). */
    AI_CPU
}
