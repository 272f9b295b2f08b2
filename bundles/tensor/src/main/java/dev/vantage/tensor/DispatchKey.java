package dev.vantage.tensor;

/**
 * The keys the dispatcher chooses kernels by, one per backend kind. Stable: new keys are appended.
 */
public enum DispatchKey {
    /** Host kernels. */
    CPU,
    /** Ascend-style NPU kernels. */
    NPU,
    /** The out-of-tree backend slot; the Spyre bundle renames it {@code spyre}. */
    PrivateUse1,
    /** Apple-style MPS kernels. */
    MPS,
    /** Autograd recording, before the device kernel. */
    Autograd
}
