package dev.vantage.tensor;

/**
 * The keys the dispatcher chooses kernels by, one per backend kind. Stable: new keys are appended.
 *
 * <p>As in torch, out-of-tree backends take one of the {@code PrivateUse} slots and show themselves under their own
 * name ({@link dev.vantage.tensor.spi.Backend#dispatchKeyName()}). A slot serves one backend at a time: a second
 * backend claiming a taken slot is refused with a message naming the holder. The built-in Spyre bundle holds
 * {@code PrivateUse1}; a vendor bundle takes {@code PrivateUse2} or {@code PrivateUse3}.
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
    Autograd,
    /** The second out-of-tree backend slot, as torch's {@code PrivateUse2}. */
    PrivateUse2,
    /** The third out-of-tree backend slot, as torch's {@code PrivateUse3}. */
    PrivateUse3
}
